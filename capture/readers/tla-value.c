// SPDX-License-Identifier: MIT
/* TLA+ values as PGo's recorder prints them: see tla-value.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tla-value.h"

struct tla_span tla_span(const char *s)
{
	return (struct tla_span){ s ? s : "", s ? strlen(s) : 0 };
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static struct tla_span trim(struct tla_span v)
{
	while (v.len && is_blank(*v.p)) {
		v.p++;
		v.len--;
	}
	while (v.len && is_blank(v.p[v.len - 1]))
		v.len--;
	return v;
}

/* After the string opening at @p: the byte past its closing quote. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return end;
}

/*
 * The first @sep in @v outside strings and brackets ( [ { << ), or NULL;
 * with @close set, the bracket that closes the one @v opens with instead.
 */
static const char *top_level(struct tla_span v, const char *sep, int close)
{
	const char *p = v.p, *end = v.p + v.len;
	size_t n = sep ? strlen(sep) : 0;
	int depth = 0;

	while (p < end) {
		int two = p + 1 < end;

		if (*p == '"') {
			p = skip_string(p, end);
			continue;
		}
		if (!depth && n && (size_t)(end - p) >= n && !memcmp(p, sep, n))
			return p;
		if (two && p[0] == '<' && p[1] == '<') {
			depth++;
			p += 2;
			continue;
		}
		if (two && p[0] == '>' && p[1] == '>') {
			if (--depth == 0 && close)
				return p;
			p += 2;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == ']' || *p == '}') &&
			 --depth == 0 && close)
			return p;
		p++;
	}
	return NULL;
}

struct tla_span tla_unwrap(struct tla_span v)
{
	for (v = trim(v); v.len >= 2 && *v.p == '(';) {
		const char *c = top_level(v, NULL, 1);

		if (c != v.p + v.len - 1)
			break;
		v = trim((struct tla_span){ v.p + 1, v.len - 2 });
	}
	return v;
}

/* Split @v at its first top-level @sep: the part before, *@rest after. */
static struct tla_span split(struct tla_span v, const char *sep,
			     struct tla_span *rest)
{
	const char *at = top_level(v, sep, 0);
	size_t n = strlen(sep);

	if (!at) {
		*rest = (struct tla_span){ v.p + v.len, 0 };
		return v;
	}
	*rest = (struct tla_span){ at + n, (size_t)(v.p + v.len - at - n) };
	return (struct tla_span){ v.p, (size_t)(at - v.p) };
}

int tla_field(struct tla_span v, const char *key, struct tla_span *out)
{
	struct tla_span rest = tla_unwrap(v);

	while (rest.len) {
		struct tla_span pair = split(rest, "@@", &rest), val, k;

		if (!top_level(pair, ":>", 0))
			return 0;   /* not a function */
		k = split(pair, ":>", &val);
		if (tla_str_is(k, key)) {
			*out = tla_unwrap(val);
			return 1;
		}
	}
	return 0;
}

/*
 * The elements of sequence @v: their number, or -1 if @v is not one;
 * element @i (from 0) in *@at if there is one.
 */
static long seq_walk(struct tla_span v, long i, struct tla_span *at)
{
	struct tla_span rest, e;
	long n = 0;

	v = tla_unwrap(v);
	if (v.len < 4 || memcmp(v.p, "<<", 2) || top_level(v, NULL, 1) !=
	    v.p + v.len - 2)
		return -1;
	rest = trim((struct tla_span){ v.p + 2, v.len - 4 });
	for (; rest.len; n++) {
		e = split(rest, ",", &rest);
		if (n == i && at)
			*at = trim(e);
	}
	return n;
}

long tla_seq_len(struct tla_span v)
{
	return seq_walk(v, -1, NULL);
}

int tla_seq_at(struct tla_span v, long i, struct tla_span *out)
{
	return i >= 0 && i < seq_walk(v, i, out);
}

long tla_nat(struct tla_span v)
{
	char buf[24], *end;
	long n;

	v = tla_unwrap(v);
	if (!v.len || v.len >= sizeof(buf) || *v.p < '0' || *v.p > '9')
		return -1;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	errno = 0;
	n = strtol(buf, &end, 10);
	return *end || errno ? -1 : n;
}

int tla_str_is(struct tla_span v, const char *s)
{
	size_t n = strlen(s);

	v = tla_unwrap(v);
	return v.len == n + 2 && v.p[0] == '"' && v.p[n + 1] == '"' &&
	       !memcmp(v.p + 1, s, n);
}

int tla_bool(struct tla_span v)
{
	v = tla_unwrap(v);
	if (v.len == 4 && !memcmp(v.p, "TRUE", 4))
		return 1;
	if (v.len == 5 && !memcmp(v.p, "FALSE", 5))
		return 0;
	return -1;
}
