// SPDX-License-Identifier: MIT
/* A strict JSON tokenizer: see json-tokens.h. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json-tokens.h"
#include "json-tokens-fast.h"
#include "json-lex.h"

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static inline int ordinary(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

struct scan {
	struct json_tokens *t;
	const char *p, *end;
	const char *why;
};

/* Where json_string() puts what it returns: a block per need. */
struct json_strings {
	struct json_strings *next;
	size_t used, size;
	char data[];
};

/*
 * The bytes of @w (8 of a string's, in memory order) that end a run of
 * bytes a string keeps as they are: '"', '\\', control and non-ASCII
 * bytes; each one's high bit, and maybe bits after the first one's.
 * Strings are most of a trace's bytes: they are read a word at a time.
 */
static inline uint64_t special_bytes(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');

	return (((q - ONES) & ~q) | ((b - ONES) & ~b) |
		((w - ONES * 0x20) & ~w) | w) & HIGHS;
}

/* Skip to the first special byte of a string (or its last 7 bytes). */
static inline const char *skip_ordinary(const char *p, const char *end)
{
	uint64_t word, special;

	while (end - p >= 8) {
		memcpy(&word, p, 8);
		special = special_bytes(word);
		if (special) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return p + (__builtin_ctzll(special) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < end && ordinary((unsigned char)*p))
		p++;
	return p;
}


static int fail(struct scan *s, const char *why)
{
	s->why = why;
	return -1;
}

static inline unsigned new_token(struct scan *s, unsigned char type)
{
	struct json_tokens *t = s->t;

	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->tok = xrealloc(t->tok, t->alloc * sizeof(*t->tok));
	}
	t->tok[t->n] = (struct json_token){ .type = type,
		.start = (unsigned)(s->p - t->text), .next = t->n + 1 };
	return t->n++;
}

/* Whitespace; between tokens, it makes copying the text wrong. */
static inline void skip_ws(struct scan *s)
{
	const char *from = s->p;

	if (s->p < s->end && (unsigned char)*s->p > ' ')
		return;
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
				 *s->p == '\n' || *s->p == '\r'))
		s->p++;
	if (s->p != from && s->t->n)
		s->t->spaced = 1;
}

/* JSON's two-character escapes, and the characters they stand for. */
static const char short_escapes[] = "\"\\/bfnrt";
static const char short_escaped[] = "\"\\/\b\f\n\r\t";

static uint32_t join_surrogates(uint32_t hi, uint32_t lo)
{
	return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
}

static int hex4(struct scan *s, uint32_t *v)
{
	long h;

	if (s->end - s->p < 4)
		return fail(s, "truncated \\u escape");
	h = json_hex_value(s->p);
	if (h < 0)
		return fail(s, "invalid \\u escape");
	s->p += 4;
	*v = (uint32_t)h;
	return 0;
}

static char *put_utf8(char *w, uint32_t cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xc0 | cp >> 6);
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xe0 | cp >> 12);
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*w++ = (char)(0xf0 | cp >> 18);
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	}
	return w;
}

/* A \uXXXX escape (s->p after the 'u'), surrogate pairs joined. */
static int unicode_escape(struct scan *s, uint32_t *cp)
{
	uint32_t lo;

	if (hex4(s, cp))
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(s, "lone low surrogate in a \\u escape");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
		return fail(s, "lone high surrogate in a \\u escape");
	s->p += 2;
	if (hex4(s, &lo))
		return -1;
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(s, "lone high surrogate in a \\u escape");
	*cp = join_surrogates(*cp, lo);
	return 0;
}

/* One escape (s->p at the backslash): the character it stands for. */
static int escape(struct scan *s, uint32_t *cp, int *as_is)
{
	const char *esc = s->p++;
	const char *e = s->p < s->end ? strchr(short_escapes, *s->p) : NULL;

	if (e && *e) {
		s->p++;
		*cp = (unsigned char)short_escaped[e - short_escapes];
	} else if (s->p < s->end && *s->p == 'u') {
		s->p++;
		if (unicode_escape(s, cp))
			return -1;
	} else {
		return fail(s, "invalid escape in a JSON string");
	}
	if (!json_written_so(esc, *cp, (size_t)(s->p - esc)))
		*as_is = 0;
	return 0;
}

/* The string whose text starts at s->p (after its quote): checked. */
static int string(struct scan *s, unsigned i)
{
	struct json_token *k = &s->t->tok[i];
	int as_is = 1, escaped = 0;

	k->type = JT_STRING;
	k->start = (unsigned)(s->p - s->t->text);
	for (;;) {
		uint32_t cp;
		int n;

		s->p = skip_ordinary(s->p, s->end);
		if (s->p == s->end)
			return fail(s, "unterminated JSON string");

		unsigned char c = (unsigned char)*s->p;

		if (c == '"')
			break;
		if (c == '\\') {
			escaped = 1;
			if (escape(s, &cp, &as_is))
				return -1;
			continue;
		}
		if (c < 0x20)
			return fail(s, "control character in a JSON string");
		n = utf8_decode((const unsigned char *)s->p, &cp);
		if (!n)
			return fail(s, "invalid UTF-8 in a JSON string");
		s->p += n;
	}
	k = &s->t->tok[i];
	k->len = (unsigned)(s->p - s->t->text) - k->start;
	k->escaped = (unsigned char)escaped;
	k->as_is = (unsigned char)as_is;
	s->p++;
	return 0;
}

/* A number at s->p as token @i (json_lex_number()). */
static int number(struct scan *s, unsigned i)
{
	s->p = json_lex_number(s->t, &s->t->tok[i], s->p, s->end, &s->why);
	return s->why ? -1 : 0;
}

static int literal(struct scan *s, unsigned i, const char *word,
		   unsigned char type)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
		return fail(s, "not a JSON value");
	s->t->tok[i].type = type;
	s->t->tok[i].len = (unsigned)n;
	s->p += n;
	return 0;
}

/* An object member's key and its colon. */
static int key(struct scan *s)
{
	unsigned i;

	skip_ws(s);
	if (s->p == s->end || *s->p != '"')
		return fail(s, s->p == s->end ? "truncated JSON value" :
			    "expected a string key in a JSON object");
	i = new_token(s, JT_STRING);
	s->p++;
	if (string(s, i))
		return -1;
	skip_ws(s);
	if (s->p == s->end || *s->p != ':')
		return fail(s, "expected : after a key in a JSON object");
	s->p++;
	return 0;
}

/* A scalar at s->p as token @i. */
static int scalar(struct scan *s, unsigned i)
{
	switch (*s->p) {
	case '"':
		s->p++;
		return string(s, i);
	case 't':
		return literal(s, i, "true", JT_TRUE);
	case 'f':
		return literal(s, i, "false", JT_FALSE);
	case 'n':
		return literal(s, i, "null", JT_NULL);
	}
	if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
		return number(s, i);
	return fail(s, "not a JSON value");
}

/*
 * After a value: close the containers that end here; 1 when the top
 * level value is complete, 0 when another value follows.
 */
static int after_value(struct scan *s, unsigned *stack, int *depth)
{
	while (*depth) {
		struct json_token *c = &s->t->tok[stack[*depth - 1]];
		int object = c->type == JT_OBJECT;

		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			return object && key(s) ? -1 : 0;
		}
		if (s->p == s->end || *s->p != (object ? '}' : ']'))
			return fail(s, s->p == s->end ? "truncated JSON value" :
				    object ? "expected , or } in a JSON object" :
				    "expected , or ] in a JSON array");
		s->p++;
		c->next = s->t->n;
		c->len = (unsigned)(s->p - s->t->text) - c->start;
		--*depth;
	}
	return 1;
}

static int value(struct scan *s)
{
	unsigned stack[JSON_TOKENS_DEPTH];
	int depth = 0, done = 0;

	do {
		skip_ws(s);
		if (s->p == s->end)
			return fail(s, depth ? "truncated JSON value" :
				    "no JSON value");

		char c = *s->p;
		unsigned i = new_token(s, JT_NULL);

		if (c == '{' || c == '[') {
			if (depth == JSON_TOKENS_DEPTH)
				return fail(s, "JSON nested too deep");
			s->t->tok[i].type = c == '{' ? JT_OBJECT : JT_ARRAY;
			stack[depth++] = i;
			s->p++;
			skip_ws(s);
			if (s->p < s->end && *s->p == (c == '{' ? '}' : ']')) {
				s->p++;
				s->t->tok[i].len = (unsigned)(s->p - s->t->text) -
						   s->t->tok[i].start;
				depth--;
			} else if (c == '{' && key(s)) {
				return -1;
			} else {
				continue;
			}
		} else if (scalar(s, i)) {
			return -1;
		}
		done = after_value(s, stack, &depth);
		if (done < 0)
			return -1;
	} while (!done);
	return 0;
}

static void strings_reset(struct json_tokens *t)
{
	struct json_strings *b = t->strings;

	while (b && b->next) {
		t->strings = b->next;
		free(b);
		b = t->strings;
	}
	if (b)
		b->used = 0;
}

const char *json_tokenize(struct json_tokens *t, const char *text, size_t len,
			  size_t *at)
{
	struct scan s = { .t = t, .p = text, .end = text + len };
	int spaced;

	t->text = text;
	t->n = 0;
	t->spaced = 0;
	strings_reset(t);
	if (len >= UINT_MAX) {
		*at = 0;
		return "JSON text too long";
	}
	if (!json_tokenize_fast(t, len))
		return NULL;
	t->n = 0;
	t->spaced = 0;
	if (!value(&s)) {
		spaced = t->spaced;
		skip_ws(&s);
		t->spaced = spaced;
		if (s.p == s.end)
			return NULL;
		s.why = "characters after the JSON value";
	}
	*at = (size_t)(s.p - text);
	return s.why;
}

void json_tokens_release(struct json_tokens *t)
{
	strings_reset(t);
	free(t->strings);
	free(t->tok);
	strbuf_release(&t->scratch);
	memset(t, 0, sizeof(*t));
}

/* Append string @k's characters to @sb (its text is valid: no checks). */
/* The escape at @p (valid: it was checked): its character; *@n its length. */
static uint32_t escaped_char(const char *p, size_t *n)
{
	uint32_t cp;

	if (p[1] != 'u') {
		*n = 2;
		return (unsigned char)short_escaped[strchr(short_escapes, p[1]) -
						    short_escapes];
	}
	cp = (uint32_t)json_hex_value(p + 2);
	*n = 6;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		cp = join_surrogates(cp, (uint32_t)json_hex_value(p + 8));
		*n = 12;
	}
	return cp;
}

/*
 * String @k's characters to @sb: each escape decoded, or, with @rewrite,
 * written as json_write_string(JSON_COMPACT) writes its character (kept
 * when it is written so already); the bytes between escapes as they are.
 */
static void put_string(struct strbuf *sb, const struct json_tokens *t,
		       const struct json_token *k, int rewrite)
{
	const char *p = t->text + k->start, *end = p + k->len;

	while (p < end) {
		const char *run = p;
		char utf8[4];
		uint32_t cp;
		size_t n, len;

		while (p < end && *p != '\\')
			p++;
		strbuf_add(sb, run, (size_t)(p - run));
		if (p == end)
			break;
		cp = escaped_char(p, &n);
		len = (size_t)(put_utf8(utf8, cp) - utf8);
		if (!rewrite)
			strbuf_add(sb, utf8, len);
		else if (json_written_so(p, cp, n))
			strbuf_add(sb, p, n);
		else
			json_write_chars(sb, utf8, len, JSON_COMPACT);
		p += n;
	}
}

static void decode(struct strbuf *sb, const struct json_tokens *t,
		   const struct json_token *k)
{
	put_string(sb, t, k, 0);
}

int json_element(const struct json_tokens *t, int arr, unsigned k)
{
	if (!json_is(t, arr, JT_ARRAY))
		return -1;
	for (unsigned j = (unsigned)arr + 1; j < t->tok[arr].next;
	     j = t->tok[j].next)
		if (!k--)
			return (int)j;
	return -1;
}

unsigned json_length(const struct json_tokens *t, int i)
{
	unsigned n = 0;

	if (json_is(t, i, JT_ARRAY))
		for (unsigned j = (unsigned)i + 1; j < t->tok[i].next;
		     j = t->tok[j].next)
			n++;
	else if (json_is(t, i, JT_OBJECT))
		for (unsigned j = (unsigned)i + 1; j < t->tok[i].next;
		     j = t->tok[j + 1].next)
			n++;
	return n;
}

static char *strings_take(struct json_tokens *t, size_t n)
{
	struct json_strings *b = t->strings;

	if (!b || b->size - b->used < n) {
		size_t size = n > 4096 ? n : 4096;

		b = xmalloc(sizeof(*b) + size);
		b->next = t->strings;
		b->used = 0;
		b->size = size;
		t->strings = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

const char *json_string(struct json_tokens *t, int i)
{
	const struct json_token *k;
	char *out;

	if (!json_is(t, i, JT_STRING))
		return NULL;
	k = &t->tok[i];
	if (k->escaped) {
		strbuf_reset(&t->scratch);
		decode(&t->scratch, t, k);
		out = strings_take(t, t->scratch.len + 1);
		memcpy(out, t->scratch.buf, t->scratch.len);
		out[t->scratch.len] = '\0';
		return out;
	}
	out = strings_take(t, k->len + 1);
	memcpy(out, t->text + k->start, k->len);
	out[k->len] = '\0';
	return out;
}

int json_escaped_string_is(const struct json_tokens *t, int i, const char *s,
			   size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	int same;

	decode(&sb, t, &t->tok[i]);
	same = sb.len == n && !memcmp(sb.buf, s, n);
	strbuf_release(&sb);
	return same;
}

int json_integer(const struct json_tokens *t, int i, long long *v)
{
	const struct json_token *k;
	double d;

	if (!json_is(t, i, JT_NUMBER))
		return -1;
	k = &t->tok[i];
	if (k->as_is) {
		const char *p = t->text + k->start;
		int neg = *p == '-';
		long long n = 0;

		for (p += neg; p < t->text + k->start + k->len; p++)
			n = n * 10 + (*p - '0');
		*v = neg ? -n : n;
		return 0;
	}
	d = json_number_value(t, k);
	if (d != floor(d) || fabs(d) >= 9007199254740992.0)
		return -1;
	*v = (long long)d;
	return 0;
}

/* Write a token that is not written as its text. */
static void write_rewritten(struct strbuf *sb, struct json_tokens *t,
			    const struct json_token *k)
{
	if (k->type == JT_NUMBER) {
		json_write_number(sb, json_number_value(t, k), JSON_COMPACT);
		return;
	}
	strbuf_add(sb, "\"", 1);
	put_string(sb, t, k, 1);
	strbuf_add(sb, "\"", 1);
}

/* Where token @k's text starts and ends (a string's quotes included). */
static unsigned text_start(const struct json_token *k)
{
	return k->start - (k->type == JT_STRING);
}

static unsigned text_end(const struct json_token *k)
{
	return k->start + k->len + (k->type == JT_STRING);
}

/* Token by token, for a text with whitespace between its tokens. */
static unsigned write_token(struct strbuf *sb, struct json_tokens *t,
			    unsigned i)
{
	const struct json_token *k = &t->tok[i];
	int object = k->type == JT_OBJECT;

	if (k->type != JT_OBJECT && k->type != JT_ARRAY) {
		if (k->type == JT_NUMBER || k->type == JT_STRING ? k->as_is : 1)
			strbuf_add(sb, t->text + text_start(k),
				   text_end(k) - text_start(k));
		else
			write_rewritten(sb, t, k);
		return i + 1;
	}
	strbuf_add(sb, object ? "{" : "[", 1);
	for (unsigned j = i + 1; j < k->next;) {
		if (j > i + 1)
			strbuf_add(sb, ",", 1);
		if (object) {
			write_token(sb, t, j++);
			strbuf_add(sb, ":", 1);
		}
		j = write_token(sb, t, j);
	}
	strbuf_add(sb, object ? "}" : "]", 1);
	return k->next;
}

/*
 * Without whitespace between tokens, the text is the output but for the
 * strings and numbers json_write() writes otherwise: copy the runs between
 * those, rewrite those.  Tokens [@first, @end), whose text ends at @to.
 */
static void write_span(struct strbuf *sb, struct json_tokens *t,
		       unsigned first, unsigned end, unsigned to)
{
	unsigned from = text_start(&t->tok[first]);

	for (unsigned j = first; j < end; j++) {
		const struct json_token *k = &t->tok[j];

		if ((k->type != JT_STRING && k->type != JT_NUMBER) || k->as_is)
			continue;
		strbuf_add(sb, t->text + from, text_start(k) - from);
		write_rewritten(sb, t, k);
		from = text_end(k);
	}
	strbuf_add(sb, t->text + from, to - from);
}

void json_tokens_write(struct strbuf *sb, struct json_tokens *t, int i)
{
	if (i < 0 || (unsigned)i >= t->n)
		return;
	if (t->spaced)
		write_token(sb, t, (unsigned)i);
	else
		write_span(sb, t, (unsigned)i, t->tok[i].next,
			   text_end(&t->tok[i]));
}

void json_tokens_write_members(struct strbuf *sb, struct json_tokens *t,
			       int from, int to)
{
	unsigned last = 0;

	for (unsigned j = (unsigned)from; j < (unsigned)to; j = t->tok[j + 1].next)
		last = j + 1;
	if (!last)
		return;
	if (!t->spaced) {
		/* the members are one run of the text, commas and all */
		write_span(sb, t, (unsigned)from, t->tok[last].next,
			   text_end(&t->tok[last]));
		return;
	}
	for (unsigned j = (unsigned)from; j < (unsigned)to; j = t->tok[j + 1].next) {
		if (j != (unsigned)from)
			strbuf_add(sb, ",", 1);
		write_token(sb, t, j);
		strbuf_add(sb, ":", 1);
		write_token(sb, t, j + 1);
	}
}
