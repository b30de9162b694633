// SPDX-License-Identifier: MIT
/*
 * The strict tokenizer against cJSON and json_write(JSON_COMPACT), as the
 * unit test (test-json-tokens.c) and the fuzz harness (tests/fuzz/) judge
 * it: see json-tokens-oracle.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/json-tokens-oracle.h"

/* @s[0, len) as a C literal for messages (cut after ~240 bytes). */
const char *tokens_show(const char *s, size_t len)
{
	static char out[4][1100];
	static int k;
	char *o = out[k++ & 3], *p = o;

	*p++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (i == 240) {
			p += sprintf(p, "\"...(%zu bytes)", len);
			return o;
		}
		if (c == '"' || c == '\\')
			p += sprintf(p, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = c;
	}
	*p++ = '"';
	*p = '\0';
	return o;
}

/* A writable copy of @s[0, len) followed by a NUL. */
char *tokens_copy(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (!c)
		abort();
	memcpy(c, s, len);
	c[len] = '\0';
	return c;
}

/* ---------------------------------------------------------------- */
/* Comparing the tokens with cJSON's tree. */

/* Token @i's subtree is well formed and ends at tok[i].next <= @end. */
static const char *structure(struct json_tokens *t, unsigned i,
			     unsigned end)
{
	const struct json_token *k = &t->tok[i];
	const char *why;
	unsigned j;

	if (k->next <= i || k->next > end)
		return "a token's next out of its parent";
	if (k->type > JT_OBJECT)
		return "unknown token type";
	if (k->type != JT_ARRAY && k->type != JT_OBJECT) {
		if (k->next != i + 1)
			return "a scalar with a subtree";
		return NULL;
	}
	for (j = i + 1; j < k->next; j = t->tok[j].next) {
		if (k->type == JT_OBJECT) {
			if (t->tok[j].type != JT_STRING)
				return "an object key that is not a string";
			if ((why = structure(t, j, k->next)))
				return why;
			if (++j >= k->next)
				return "an object key without a value";
		}
		if ((why = structure(t, j, k->next)))
			return why;
	}
	return NULL;
}

/*
 * json_tokens_write_members() of object @i from each member to each later
 * one (and to its end) writes what its members written one by one do.
 */
static const char *members_written(struct json_tokens *t, int i)
{
	const char *why = NULL;
	unsigned end = t->tok[i].next;

	for (unsigned from = i + 1; from <= end && !why;
	     from = from < end ? t->tok[from + 1].next : end + 1)
		for (unsigned to = from; to <= end && !why;
		     to = to < end ? t->tok[to + 1].next : end + 1) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

			json_tokens_write_members(&a, t, (int)from, (int)to);
			for (unsigned j = from; j < to; j = t->tok[j + 1].next) {
				if (j != from)
					strbuf_add(&b, ",", 1);
				json_tokens_write(&b, t, (int)j);
				strbuf_add(&b, ":", 1);
				json_tokens_write(&b, t, (int)j + 1);
			}
			if (a.len != b.len || (a.len && memcmp(a.buf, b.buf, a.len)))
				why = "json_tokens_write_members differs from "
				      "its members written one by one";
			strbuf_release(&a);
			strbuf_release(&b);
		}
	return why;
}

/*
 * Token @i against cJSON's @v, through the accessors (no string holds a
 * NUL: cJSON's would stop there).
 */
static const char *same(struct json_tokens *t, int i, const cJSON *v)
{
	const struct json_token *k = &t->tok[i];
	const char *why;
	long long n;
	unsigned m;
	int j;

	/* json_tokens_write of any value, not only the whole text */
	if (i > 0) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		int differ;

		json_tokens_write(&a, t, i);
		json_write(&b, v, JSON_COMPACT);
		differ = a.len != b.len || memcmp(a.buf, b.buf, b.len);
		strbuf_release(&a);
		strbuf_release(&b);
		if (differ)
			return "json_tokens_write of an inner value differs";
	}
	if (!json_is(t, i, (enum json_token_type)k->type))
		return "json_is false for its own type";
	switch (v->type & 0xff) {
	case cJSON_NULL: return k->type == JT_NULL ? NULL : "not null";
	case cJSON_True: return k->type == JT_TRUE ? NULL : "not true";
	case cJSON_False: return k->type == JT_FALSE ? NULL : "not false";
	case cJSON_Number:
		if (k->type != JT_NUMBER)
			return "not a number";
		if (!json_integer(t, i, &n)) {
			if ((double)n != v->valuedouble)
				return "json_integer differs from cJSON's number";
		} else if (v->valuedouble < 9007199254740992.0 &&
			   v->valuedouble > -9007199254740992.0 &&
			   v->valuedouble ==
			   (double)(long long)v->valuedouble) {
			return "json_integer refuses an integral value (1e2, 1.0)";
		}
		return NULL;
	case cJSON_String:
		if (k->type != JT_STRING || !json_string(t, i))
			return "not a string";
		if (strcmp(json_string(t, i), v->valuestring))
			return "json_string differs from cJSON's string";
		if (!json_string_is(t, i, v->valuestring))
			return "json_string_is differs from cJSON's string";
		return NULL;
	case cJSON_Array:
		if (k->type != JT_ARRAY)
			return "not an array";
		if (json_length(t, i) != (unsigned)cJSON_GetArraySize(v))
			return "array length differs";
		m = 0;
		for (const cJSON *e = v->child; e; e = e->next, m++) {
			j = json_element(t, i, m);
			if (j < 0)
				return "json_element missing an element";
			if ((why = same(t, j, e)))
				return why;
		}
		if (json_element(t, i, m) != -1)
			return "json_element past the end";
		const cJSON *e = v->child;
		m = 0;
		json_for_each_element(t, x, i) {
			if (!e)
				return "json_for_each_element: too many";
			if (x != json_element(t, i, m++))
				return "json_for_each_element: not json_element";
			e = e->next;
		}
		if (e)
			return "json_for_each_element: too few";
		{
			int a = -1, b = -1;
			int two = json_pair(t, i, &a, &b);

			if (two != (cJSON_GetArraySize(v) == 2))
				return "json_pair: not exactly the 2-element arrays";
			if (two && (a != json_element(t, i, 0) ||
				    b != json_element(t, i, 1)))
				return "json_pair: not elements 0 and 1";
		}
		return NULL;
	case cJSON_Object:
		if (k->type != JT_OBJECT)
			return "not an object";
		json_for_each_element(t, x, i)
			return "json_for_each_element on an object";
		{
			int a, b;

			if (json_pair(t, i, &a, &b))
				return "json_pair on an object";
		}
		if (json_length(t, i) != (unsigned)cJSON_GetArraySize(v))
			return "object length differs";
		j = i + 1;
		for (const cJSON *e = v->child; e; e = e->next) {
			if (j >= (int)k->next)
				return "fewer members than cJSON's";
			if (!json_string_is(t, j, e->string) ||
			    !json_string(t, j) ||
			    strcmp(json_string(t, j), e->string))
				return "key differs from cJSON's";
			if ((why = same(t, j + 1, e)))
				return why;
			/* the first member of that name, for both */
			int fj = json_member(t, i, e->string);
			if (fj < 0)
				return "json_member misses a key";
			if (cJSON_GetObjectItemCaseSensitive(v, e->string) ==
			    e && fj != j + 1)
				return "json_member not the first";
			j = t->tok[j + 1].next;
		}
		return members_written(t, i);
	}
	return "unexpected cJSON type";
}

/* See json-tokens-oracle.h. */
const char *tokens_consistent(struct json_tokens *t, const char *s,
			      size_t len, int *accepted, struct strbuf *out)
{
	static char why[256];
	struct strbuf ours = STRBUF_INIT, ref = STRBUF_INIT;
	char *text = tokens_copy(s, len);
	const char *err, *res = NULL;
	size_t at = (size_t)-1;
	cJSON *v = NULL;

	err = json_tokenize(t, text, len, &at);
	*accepted = !err;
	if (err) {
		if (at > len) {
			snprintf(why, sizeof(why),
				 "refused (%s) at %zu, beyond the text (%zu)",
				 err, at, len);
			res = why;
		}
		goto out;
	}
	if (memchr(s, 0, len)) {
		res = "accepted a NUL byte";
		goto out;
	}
	if (t->n == 0 || t->text != text) {
		res = "accepted without tokens";
		goto out;
	}
	if ((err = structure(t, 0, t->n)) || (t->tok[0].next != t->n &&
					      (err = "tokens after the value"))) {
		res = err;
		goto out;
	}
	strbuf_addstr(&ours, "<");   /* json_tokens_write appends */
	json_tokens_write(&ours, t, 0);
	if (ours.buf[0] != '<') {
		res = "json_tokens_write does not append";
		goto out;
	}
	memmove(ours.buf, ours.buf + 1, ours.len--);
	if (out) {
		strbuf_reset(out);
		strbuf_add(out, ours.buf, ours.len);
	}
	v = cJSON_ParseWithOpts(text, NULL, 1);  /* @s need not end in a NUL */
	if (!v) {
		res = "accepted, cJSON refuses";
		goto out;
	}
	if ((err = json_check_record(v))) {
		snprintf(why, sizeof(why), "accepted, json_check_record: %s",
			 err);
		res = why;
		goto out;
	}
	if (memmem(s, len, "\\u0000", 6))
		goto out;       /* cJSON's strings stop at \u0000 */
	json_write(&ref, v, JSON_COMPACT);
	if (ours.len != ref.len || memcmp(ours.buf, ref.buf, ref.len)) {
		snprintf(why, sizeof(why), "wrote %s, json_write %s",
			 tokens_show(ours.buf, ours.len),
			 tokens_show(ref.buf, ref.len));
		res = why;
		goto out;
	}
	if ((err = same(t, 0, v)))
		res = err;
	else if (memcmp(text, s, len) || text[len])
		res = "json_tokenize changed the text";
out:
	cJSON_Delete(v);
	strbuf_release(&ours);
	strbuf_release(&ref);
	free(text);
	return res;
}
