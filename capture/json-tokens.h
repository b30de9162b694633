/* SPDX-License-Identifier: MIT */
/*
 * JSON text as tokens: a strict RFC 8259 tokenizer.
 *
 * Folding a large recorded trace is mostly reading JSON, and cJSON builds
 * a tree of heap nodes and copies every string (~220 MB/s on the machines
 * this was measured on, parsing alone).  json_tokenize() checks one value
 * and describes it as an array of tokens in document order that point
 * into the text, which stays the caller's, unchanged, and must outlive
 * the tokens.  Strings are decoded only when asked for.
 *
 * What it refuses, cJSON's parse plus json_check_record() refuse too,
 * and more: the grammar is RFC 8259's to the letter (no leading zeros, no
 * raw control characters in strings), strings must be valid UTF-8 and
 * \u escapes pair their surrogates, numbers must be finite as doubles,
 * and values nest at most JSON_TOKENS_DEPTH deep (cJSON's limit).
 *
 * Token i's subtree ends before tok[i].next; an object's members are its
 * key (a string token) then its value, one member after the other.
 * json_tokens_write() writes a value byte for byte as json_write(...,
 * JSON_COMPACT) writes cJSON's parse of the same text (but for a \u0000,
 * which it keeps where cJSON ends the string): mostly by copying the
 * text, which a recorder usually writes that way already.
 */
#ifndef CAPTURE_JSON_TOKENS_H
#define CAPTURE_JSON_TOKENS_H

#include <stddef.h>
#include <string.h>
#include "json.h"
#include "json-token.h"

/*
 * Tokenize @text[0, len), which holds one JSON value with whitespace
 * around it and must be followed by a NUL (text[len] == '\0').  Returns
 * NULL, or what is wrong with it (*@at: the byte offset where).  @t keeps
 * its allocations from call to call.
 */
const char *json_tokenize(struct json_tokens *t, const char *text, size_t len,
			  size_t *at);
void json_tokens_release(struct json_tokens *t);

/* Whether token @i is there and of @type. */
static inline int json_is(const struct json_tokens *t, int i,
			  enum json_token_type type)
{
	return i >= 0 && (unsigned)i < t->n && t->tok[i].type == type;
}

/*
 * Whether @i is a string equal to @s[0, @n) (all of it: a \u0000 counts).
 * Inline: a folder compares keys and names by the million, and with a
 * literal @s the compiler knows its length.
 */
int json_escaped_string_is(const struct json_tokens *t, int i, const char *s,
			   size_t n);
static inline int json_string_is_n(const struct json_tokens *t, int i,
				   const char *s, size_t n)
{
	const struct json_token *k;

	if (!json_is(t, i, JT_STRING))
		return 0;
	k = &t->tok[i];
	if (k->escaped)
		return json_escaped_string_is(t, i, s, n);
	return k->len == n && !memcmp(t->text + k->start, s, n);
}

/* Whether @i is a string equal to @s. */
static inline int json_string_is(const struct json_tokens *t, int i,
				 const char *s)
{
	return json_string_is_n(t, i, s, strlen(s));
}

/* The value of the first member @key of object @obj; -1 if none. */
static inline int json_member(const struct json_tokens *t, int obj,
			      const char *key)
{
	size_t n = strlen(key);

	if (!json_is(t, obj, JT_OBJECT))
		return -1;
	for (unsigned j = (unsigned)obj + 1; j < t->tok[obj].next;
	     j = t->tok[j + 1].next)
		if (json_string_is_n(t, (int)j, key, n))
			return (int)j + 1;
	return -1;
}
/* Element @k of array @arr; -1 if none. */
int json_element(const struct json_tokens *t, int arr, unsigned int k);
/* Number of elements (members) of array (object) @i; 0 for a scalar. */
unsigned int json_length(const struct json_tokens *t, int i);
/*
 * String @i, decoded and NUL-terminated (valid until the next
 * json_tokenize() on @t); NULL if @i is not a string.
 */
const char *json_string(struct json_tokens *t, int i);
/* Number @i as an integer of magnitude below 2^53: 0 and *v, else -1. */
int json_integer(const struct json_tokens *t, int i, long long *v);

/* Whether @arr is an array of exactly two elements: *@a and *@b. */
static inline int json_pair(const struct json_tokens *t, int arr, int *a,
			    int *b)
{
	if (!json_is(t, arr, JT_ARRAY) || t->tok[arr].next == (unsigned)arr + 1)
		return 0;
	*a = arr + 1;
	*b = (int)t->tok[*a].next;
	return t->tok[arr].next > (unsigned)*b &&
	       t->tok[*b].next == t->tok[arr].next;
}

/* Each element @e (an int) of @arr, if @arr is an array token. */
#define json_for_each_element(t, e, arr)				\
	for (int e = json_is(t, arr, JT_ARRAY) ? (arr) + 1 : 0;		\
	     json_is(t, arr, JT_ARRAY) && e < (int)(t)->tok[arr].next;	\
	     e = (int)(t)->tok[e].next)

/* Write value @i as json_write(JSON_COMPACT) writes it. */
void json_tokens_write(struct strbuf *sb, struct json_tokens *t, int i);
/*
 * Write the members of an object from key token @from up to key token @to
 * (or the object's end: its tok[].next) as json_write(JSON_COMPACT)
 * writes them inside it: "k":v,"k":v.
 */
void json_tokens_write_members(struct strbuf *sb, struct json_tokens *t,
			       int from, int to);

#endif
