// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json.h"

void strbuf_grow(struct strbuf *sb, size_t len)
{
	sb->alloc = (sb->len + len + 1) * 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
}

static inline void put_str(struct strbuf *sb, const char *s)
{
	strbuf_put(sb, s, strlen(s));
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_put(sb, data, len);
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(small)) {
		strbuf_add(sb, small, n);
		return;
	}
	char *big = xmalloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(big, n + 1, fmt, ap);
	va_end(ap);
	strbuf_add(sb, big, n);
	free(big);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

/*
 * Decode one UTF-8 sequence at @s; returns its length, 0 if invalid
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
int utf8_decode(const unsigned char *s, uint32_t *cp)
{
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (!n || s[0] >= 0xf8)
		return 0;
	*cp = s[0] & (0x3f >> (n - 1));
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if (*cp < least[n] || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

static int utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	int n;

	for (;;) {
		while (*s && *s < 0x80)
			s++;
		if (!*s)
			return 1;
		n = utf8_decode(s, &cp);
		if (!n)
			return 0;
		s += n;
	}
}

const char *json_check_record(const cJSON *v)
{
	const cJSON *m;
	const char *why;

	if (v->string && !utf8_valid(v->string))
		return "invalid UTF-8 in a JSON key";
	switch (v->type & 0xff) {
	case cJSON_Number:
		return isfinite(v->valuedouble) ? NULL :
		       "a JSON number out of range (not finite)";
	case cJSON_String:
		return utf8_valid(v->valuestring) ? NULL :
		       "invalid UTF-8 in a JSON string";
	case cJSON_Array:
	case cJSON_Object:
		cJSON_ArrayForEach(m, v)
			if ((why = json_check_record(m)))
				return why;
	}
	return NULL;
}

const char *json_repeated_key(const cJSON *v)
{
	const cJSON *m, *n;
	const char *key;

	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return NULL;
	cJSON_ArrayForEach(m, v) {
		for (n = m->next; cJSON_IsObject(v) && n; n = n->next)
			if (!strcmp(m->string, n->string))
				return m->string;
		if ((key = json_repeated_key(m)))
			return key;
	}
	return NULL;
}

/* Bytes a string can hold as they are, in @style. */
static int plain(unsigned char c, enum json_style style)
{
	return c >= 0x20 && c != '"' && c != '\\' &&
	       (c < 0x80 || style != JSON_PYTHON);
}

void json_write_chars(struct strbuf *sb, const char *str, size_t len,
		      enum json_style style)
{
	const unsigned char *s = (const unsigned char *)str, *end = s + len;

	while (s < end) {
		const unsigned char *run = s;
		uint32_t cp;
		int n;

		while (s < end && plain(*s, style))
			s++;
		if (s > run) {
			strbuf_put(sb, run, s - run);
			continue;
		}
		switch (*s) {
		case '"': put_str(sb, "\\\""); s++; continue;
		case '\\': put_str(sb, "\\\\"); s++; continue;
		case '\b': put_str(sb, "\\b"); s++; continue;
		case '\f': put_str(sb, "\\f"); s++; continue;
		case '\n': put_str(sb, "\\n"); s++; continue;
		case '\r': put_str(sb, "\\r"); s++; continue;
		case '\t': put_str(sb, "\\t"); s++; continue;
		}
		if (*s < 0x20) {
			strbuf_addf(sb, "\\u%04x", *s++);
			continue;
		}
		/* Python's ensure_ascii: \uXXXX, surrogate pairs above the BMP. */
		n = utf8_decode(s, &cp);
		if (!n)
			die(EXIT_BAD_INPUT, "invalid UTF-8 in a JSON string");
		if (cp >= 0x10000) {
			cp -= 0x10000;
			strbuf_addf(sb, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
				    0xdc00 + (cp & 0x3ff));
		} else {
			strbuf_addf(sb, "\\u%04x", cp);
		}
		s += n;
	}
}

void json_write_string(struct strbuf *sb, const char *str, size_t len,
		       enum json_style style)
{
	strbuf_put(sb, "\"", 1);
	json_write_chars(sb, str, len, style);
	strbuf_put(sb, "\"", 1);
}

/* Shortest "%.*e" that reads back as @d: the digits of a round trip. */
static int shortest_digits(double d, char *out, size_t size)
{
	for (int prec = 0; prec < 17; prec++) {
		snprintf(out, size, "%.*e", prec, d);
		if (strtod(out, NULL) == d)
			return prec;
	}
	snprintf(out, size, "%.16e", d);
	return 16;
}

/*
 * Non-integral numbers: Python's repr() and ECMAScript's
 * Number.prototype.toString() agree on the digits (shortest round trip)
 * and differ in where they switch to exponent notation.
 */
static void write_double(struct strbuf *sb, double d, enum json_style style)
{
	char e[40], digits[24];
	int prec, exp, nd = 0;

	if (!isfinite(d))
		die(EXIT_BAD_INPUT, "a JSON number is not finite");
	prec = shortest_digits(d, e, sizeof(e));
	const char *p = e;
	if (*p == '-') {
		strbuf_put(sb, "-", 1);
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	digits[nd] = '\0';
	exp = atoi(p + 1);
	(void)prec;

	int sci = style == JSON_PYTHON ? (exp < -4 || exp >= 16)
				       : (exp < -6 || exp >= 21);
	if (sci) {
		strbuf_put(sb, digits, 1);
		if (nd > 1) {
			strbuf_put(sb, ".", 1);
			strbuf_put(sb, digits + 1, nd - 1);
		}
		if (style == JSON_PYTHON)
			strbuf_addf(sb, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
		else
			strbuf_addf(sb, "e%c%d", exp < 0 ? '-' : '+', abs(exp));
	} else if (exp < 0) {
		put_str(sb, "0.");
		for (int i = -1; i > exp; i--)
			strbuf_put(sb, "0", 1);
		strbuf_put(sb, digits, nd);
	} else {
		for (int i = 0; i <= exp || i < nd; i++) {
			if (i == exp + 1)
				strbuf_put(sb, ".", 1);
			strbuf_put(sb, i < nd ? &digits[i] : "0", 1);
		}
		if (nd <= exp + 1 && style == JSON_PYTHON)
			put_str(sb, ".0");
	}
}

/* An integer's decimal digits: the common number, too hot for printf. */
void strbuf_add_uint(struct strbuf *sb, unsigned long long u)
{
	char digits[24], *p = digits + sizeof(digits);

	do
		*--p = '0' + u % 10;
	while (u /= 10);
	strbuf_put(sb, p, digits + sizeof(digits) - p);
}

void strbuf_add_int(struct strbuf *sb, long long n)
{
	if (n < 0)
		strbuf_put(sb, "-", 1);
	strbuf_add_uint(sb, n < 0 ? -(unsigned long long)n : (unsigned long long)n);
}

void json_write_number(struct strbuf *sb, double d, enum json_style style)
{
	if (d == floor(d) && fabs(d) < 9007199254740992.0) {
		strbuf_add_int(sb, (long long)d);
		return;
	}
	write_double(sb, d, style);
}

/* RFC 8785 orders keys by their UTF-16 code units. */
static int utf16_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && *y) {
		uint32_t cx, cy;
		int nx = utf8_decode(x, &cx), ny = utf8_decode(y, &cy);

		if (!nx || !ny)
			return strcmp((const char *)x, (const char *)y);
		/* Above the BMP a code point is a surrogate pair (0xd800..). */
		uint32_t ux = cx >= 0x10000 ? 0xd800 + ((cx - 0x10000) >> 10) : cx;
		uint32_t uy = cy >= 0x10000 ? 0xd800 + ((cy - 0x10000) >> 10) : cy;
		if (ux != uy)
			return ux < uy ? -1 : 1;
		if (cx != cy)
			return cx < cy ? -1 : 1;
		x += nx;
		y += ny;
	}
	return *x ? 1 : *y ? -1 : 0;
}

static int member_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;

	return utf16_cmp(x->string, y->string);
}

void json_write_member(struct strbuf *sb, const char *key, const cJSON *v,
		       int first, enum json_style style)
{
	if (!first)
		put_str(sb, style == JSON_PYTHON ? ", " : ",");
	json_write_string(sb, key, strlen(key), style);
	put_str(sb, style == JSON_PYTHON ? ": " : ":");
	json_write(sb, v, style);
}

/* RFC 8785 sorts the members (of two or more); other styles keep them. */
static void write_object(struct strbuf *sb, const cJSON *v,
			 enum json_style style)
{
	const cJSON **members, *m;
	int n, i = 0;

	strbuf_put(sb, "{", 1);
	if (style != JSON_CANONICAL || !v->child || !v->child->next) {
		cJSON_ArrayForEach(m, v)
			json_write_member(sb, m->string, m, m == v->child,
					  style);
		strbuf_put(sb, "}", 1);
		return;
	}
	n = cJSON_GetArraySize(v);
	members = xcalloc(n, sizeof(*members));
	cJSON_ArrayForEach(m, v)
		members[i++] = m;
	qsort(members, n, sizeof(*members), member_cmp);
	for (i = 0; i < n; i++)
		json_write_member(sb, members[i]->string, members[i], !i,
				  style);
	strbuf_put(sb, "}", 1);
	free(members);
}

void json_write(struct strbuf *sb, const cJSON *v, enum json_style style)
{
	const cJSON *m;
	int first = 1;

	switch (v->type & 0xff) {
	case cJSON_NULL: put_str(sb, "null"); return;
	case cJSON_True: put_str(sb, "true"); return;
	case cJSON_False: put_str(sb, "false"); return;
	case cJSON_Number: json_write_number(sb, v->valuedouble, style); return;
	case cJSON_String:
		json_write_string(sb, v->valuestring, strlen(v->valuestring), style);
		return;
	case cJSON_Raw: put_str(sb, v->valuestring); return;
	case cJSON_Object: write_object(sb, v, style); return;
	case cJSON_Array:
		strbuf_put(sb, "[", 1);
		cJSON_ArrayForEach(m, v) {
			if (!first)
				put_str(sb, style == JSON_PYTHON ? ", " : ",");
			first = 0;
			json_write(sb, m, style);
		}
		strbuf_put(sb, "]", 1);
		return;
	}
	die(EXIT_CAPTURE_FAILED, "json_write: unknown cJSON type %d", v->type);
}

static void newline(struct strbuf *sb, int depth)
{
	strbuf_put(sb, "\n", 1);
	for (int i = 0; i < depth; i++)
		strbuf_put(sb, "  ", 2);
}

void json_write_indented(struct strbuf *sb, const cJSON *v, int depth)
{
	const cJSON *m;
	int obj = cJSON_IsObject(v);

	if ((!obj && !cJSON_IsArray(v)) || !v->child) {
		json_write(sb, v, JSON_PYTHON);
		return;
	}
	strbuf_put(sb, obj ? "{" : "[", 1);
	cJSON_ArrayForEach(m, v) {
		newline(sb, depth + 1);
		if (obj) {
			json_write_string(sb, m->string, strlen(m->string),
					  JSON_PYTHON);
			put_str(sb, ": ");
		}
		json_write_indented(sb, m, depth + 1);
		if (m->next)
			strbuf_put(sb, ",", 1);
	}
	newline(sb, depth);
	strbuf_put(sb, obj ? "}" : "]", 1);
}

void json_print_indented(FILE *f, const cJSON *v)
{
	struct strbuf sb = STRBUF_INIT;

	json_write_indented(&sb, v, 0);
	fprintf(f, "%s\n", sb.buf);
	strbuf_release(&sb);
}

const char *const json_style_names[] = {
	[JSON_PYTHON] = "python", [JSON_COMPACT] = "compact",
	[JSON_CANONICAL] = "canonical", NULL,
};

static cJSON *made(cJSON *v)
{
	if (!v)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	return v;
}

cJSON *json_obj(void) { return made(cJSON_CreateObject()); }
cJSON *json_arr(void) { return made(cJSON_CreateArray()); }
cJSON *json_int(long long n) { return made(cJSON_CreateNumber((double)n)); }
cJSON *json_str(const char *s) { return made(cJSON_CreateString(s)); }
cJSON *json_bool(int b) { return made(cJSON_CreateBool(b)); }
cJSON *json_null(void) { return made(cJSON_CreateNull()); }
cJSON *json_dup(const cJSON *v) { return made(cJSON_Duplicate(v, 1)); }

cJSON *json_add(cJSON *obj, const char *key, cJSON *v)
{
	if (cJSON_IsArray(obj)) {
		cJSON_AddItemToArray(obj, v);
		return v;
	}
	if (cJSON_GetObjectItemCaseSensitive(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
	else
		cJSON_AddItemToObject(obj, key, v);
	return v;
}

void json_count(cJSON *counts, const char *key, long long n)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(counts, key);

	if (c)
		cJSON_SetNumberValue(c, c->valuedouble + n);
	else
		json_add(counts, key, json_int(n));
}

const cJSON *json_get(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key)
				   : NULL;
}

const char *json_get_str(const cJSON *obj, const char *key)
{
	const cJSON *v = json_get(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int json_int_value(const cJSON *v, long long *out)
{
	/* outside [-2^63, 2^63) the conversion is undefined */
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble >= 9223372036854775808.0 ||
	    v->valuedouble < -9223372036854775808.0)
		return -1;
	*out = (long long)v->valuedouble;
	return 0;
}

int json_get_int(const cJSON *obj, const char *key, long long *out)
{
	return json_int_value(json_get(obj, key), out);
}
