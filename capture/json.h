/* SPDX-License-Identifier: MIT */
/*
 * Deterministic JSON output.
 *
 * Values are cJSON trees; object keys keep the order they were added in,
 * which is how a system declares its key order.  Three styles:
 *  JSON_PYTHON:    separators ", " and ": ", non-ASCII as \uXXXX -- what
 *                  Python's json.dumps() writes by default, so our windows
 *                  are byte-identical to the published corpora;
 *  JSON_COMPACT:   "," and ":", keys in declared order;
 *  JSON_CANONICAL: RFC 8785 (JCS): keys sorted by UTF-16 code units, no
 *                  whitespace, ECMAScript number formatting.
 * Numbers that are integral and fit 2^53 print as integers.
 */
#ifndef CAPTURE_JSON_H
#define CAPTURE_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cJSON.h>

enum json_style { JSON_PYTHON, JSON_COMPACT, JSON_CANONICAL };

/* A growable byte buffer. */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
/* Room for @len more bytes and a NUL. */
void strbuf_grow(struct strbuf *sb, size_t len);

/* strbuf_add, inlined where a writer adds a few bytes at a time. */
static inline void strbuf_put(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->len + len + 1 > sb->alloc)
		strbuf_grow(sb, len);
	if (len)   /* an empty buffer's NULL may come: memcpy may not take it */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @n in decimal (what printf's %lld writes, for a fraction of its cost) */
void strbuf_add_int(struct strbuf *sb, long long n);
void strbuf_add_uint(struct strbuf *sb, unsigned long long n);
void strbuf_reset(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

/* Append @v serialized in @style to @sb. */
void json_write(struct strbuf *sb, const cJSON *v, enum json_style style);
/*
 * One member "key": value of an object being written in @style (preceded
 * by the separator unless @first): for writers that stream an object
 * without building it.  The caller keeps RFC 8785's member order.
 */
void json_write_member(struct strbuf *sb, const char *key, const cJSON *v,
		       int first, enum json_style style);
/* A string of @len bytes (valid UTF-8), a number: as json_write() does. */
void json_write_string(struct strbuf *sb, const char *s, size_t len,
		       enum json_style style);
/* The same string's characters, without its quotes. */
void json_write_chars(struct strbuf *sb, const char *s, size_t len,
		      enum json_style style);
void json_write_number(struct strbuf *sb, double d, enum json_style style);
/* Like Python's json.dumps(v, indent=2): for files people read (manifests). */
void json_write_indented(struct strbuf *sb, const cJSON *v, int depth);
/* @v indented as above, and a newline, to @f (reports on stdout). */
void json_print_indented(FILE *f, const cJSON *v);

/*
 * What in @v the writer would refuse -- invalid UTF-8 in a string or key
 * (RFC 3629), a number that is not finite (1e999) -- or NULL if nothing:
 * readers check each record they parse, so that such input dies naming
 * its file and line rather than later in the writer.
 */
const char *json_check_record(const cJSON *v);
/*
 * The first key that an object in @v (at any depth) has twice, or NULL.
 * cJSON keeps both, and compares or looks up only the first.
 */
const char *json_repeated_key(const cJSON *v);

/*
 * Decode one UTF-8 sequence at @s (read up to a byte that cannot continue
 * it, so a NUL stops it); returns its length, 0 if invalid (RFC 3629).
 */
int utf8_decode(const unsigned char *s, uint32_t *cp);

/* The styles' names, in the enum's order, NULL-ended (--json's choices). */
extern const char *const json_style_names[];

/* Builders that die on allocation failure. */
cJSON *json_obj(void);
cJSON *json_arr(void);
cJSON *json_add(cJSON *obj, const char *key, cJSON *v); /* returns v */
cJSON *json_int(long long n);
cJSON *json_str(const char *s);
cJSON *json_bool(int b);
cJSON *json_null(void);
cJSON *json_dup(const cJSON *v);  /* a deep copy */

/* Add @n to the number at @key of @counts (created at 0). */
void json_count(cJSON *counts, const char *key, long long n);

/* Lookups returning NULL/-1 when absent or of another type. */
const cJSON *json_get(const cJSON *obj, const char *key);
const char *json_get_str(const cJSON *obj, const char *key);
/* An integer number within [-2^63, 2^63) (json_int_value: @v itself). */
int json_get_int(const cJSON *obj, const char *key, long long *out);
int json_int_value(const cJSON *v, long long *out);

#endif
