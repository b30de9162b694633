// SPDX-License-Identifier: MIT
/*
 * The strict tokenizer against cJSON and json_write(JSON_COMPACT): hand
 * picked values with their exact output, random values and random
 * mutations compared with what cJSON parses (a fixed-seed PRNG, so runs
 * repeat), what it must refuse, and the accessors.
 *
 * json_tokenize() must leave the text as it is (the header says so; the
 * test still hands it a writable copy).
 *
 * The reference for output is json_write() of cJSON's parse, except for
 * texts with a \u0000 escape: cJSON's strings end at their first NUL, the
 * tokens' do not, so those are only checked against literal expectations.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/json-tokens.h"
#include "tests/unit/json-tokens-oracle.h"
#include "unit.h"

static struct json_tokens T;   /* one allocation kept from call to call */

/* ---------------------------------------------------------------- */
/* xorshift64* */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* ---------------------------------------------------------------- */
/* 1. Hand-picked values and their exact output. */

struct valid { const char *in, *want; size_t inlen; };

#define V(in, want) { in, want, sizeof(in) - 1 }
static const struct valid valids[] = {
	V("{\"a\":{\"b\":[1,[2,[]],{}]},\"c\":[]}",
	  "{\"a\":{\"b\":[1,[2,[]],{}]},\"c\":[]}"),
	V("{}", "{}"),
	V("[]", "[]"),
	V(" { } ", "{}"),
	V("\t[\r\n]\n", "[]"),
	V(" \t\r\n{ \"a\" :\t[ 1 ,\r\n2 , [ ] ] , \"b\"\n:{\"c\" : null}\t}\r\n ",
	  "{\"a\":[1,2,[]],\"b\":{\"c\":null}}"),
	V("{\"k\":1,\"k\":2,\"j\":[],\"k\":{}}",
	  "{\"k\":1,\"k\":2,\"j\":[],\"k\":{}}"),
	V("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\\"\\\\/\\b\\f\\n\\r\\t\""),
	V("\"a\\u003eb\"", "\"a>b\""),
	V("\"\\u0041\\u0062/\"", "\"Ab/\""),
	V("\"\\u00e9\"", "\"\xc3\xa9\""),
	V("\"\\u00E9\"", "\"\xc3\xa9\""),
	V("\"\xc3\xa9\"", "\"\xc3\xa9\""),
	V("\"\\u20ac\xe2\x82\xac\"", "\"\xe2\x82\xac\xe2\x82\xac\""),
	V("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\""),
	V("\"\\uD83D\\uDE00x\xf0\x9f\x98\x80\"",
	  "\"\xf0\x9f\x98\x80x\xf0\x9f\x98\x80\""),
	V("\"\\udbff\\udfff\"", "\"\xf4\x8f\xbf\xbf\""),
	V("\"\\u001f\\u0001\"", "\"\\u001f\\u0001\""),
	V("\"\\u001F\\u000B\\u000e\"", "\"\\u001f\\u000b\\u000e\""),
	V("\"\\u0022\\u005C\\u002f\"", "\"\\\"\\\\/\""),
	V("\"\\u0008\\u000a\\u000C\\u000d\\u0009\"", "\"\\b\\n\\f\\r\\t\""),
	V("[\"\\u001f\",\"\\/\",\"\\n\"]", "[\"\\u001f\",\"/\",\"\\n\"]"),
	V("\"\\u007f\\u2028\"", "\"\x7f\xe2\x80\xa8\""),
	V("{\"\\n\\u00e9\":\"\\t\"}", "{\"\\n\xc3\xa9\":\"\\t\"}"),
	V("\"\"", "\"\""),
	V("0", "0"),
	V("-0", "0"),
	V("12", "12"),
	V("-12", "-12"),
	V("1.5", "1.5"),
	V("1e2", "100"),
	V("1.0", "1"),
	V("1E-7", "1e-7"),
	V("123456789012345678", "123456789012345680"),
	V("[0,-0,12,-12,1.5,1e2,1.0,1E-7,123456789012345678]",
	  "[0,0,12,-12,1.5,100,1,1e-7,123456789012345680]"),
	V("-0.0", "0"),
	V("0.1", "0.1"),
	V("-1.25E+2", "-125"),
	V("2.5e-3", "0.0025"),
	V("1e007", "10000000"),
	V("1e20", "100000000000000000000"),
	V("1e21", "1e+21"),
	V("1e-400", "0"),
	V("5e-324", "5e-324"),
	V("1.7976931348623157e308", "1.7976931348623157e+308"),
	V("9007199254740991", "9007199254740991"),
	V("[-5,-0,-1.5,-10]", "[-5,0,-1.5,-10]"),
	V("999999999999999", "999999999999999"),
	V("-999999999999999", "-999999999999999"),
	V("1000000000000000", "1000000000000000"),
	V("9999999999999999", "10000000000000000"),
	V("-9999999999999999", "-10000000000000000"),
	V("12345678901234567890123", "1.2345678901234568e+22"),
	V("0.30000000000000004", "0.30000000000000004"),
	V("100e-2", "1"),
	/* longer than cJSON's and json-tokens' 64-byte number buffers */
	V("[0.00000000000000000000000000000000000000000000000000000000000000000000001]", "[1e-71]"),
	V("1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", "1e+99"),
	V("[1 , 2]", "[1,2]"),
	V("{\"a\":[1,{\"b\":\"\\/\"}]}", "{\"a\":[1,{\"b\":\"/\"}]}"),
	V("-9007199254740992", "-9007199254740992"),
	V("9007199254740993", "9007199254740992"),
	V("[true,false,null]", "[true,false,null]"),
	V("true", "true"),
	V("false", "false"),
	V(" null ", "null"),
};

/* \u0000 is kept (cJSON would cut the string there): literal checks only. */
static const struct valid nul_valids[] = {
	V("\"\\u0000\"", "\"\\u0000\""),
	V("\"a\\u0000b\\u001f\"", "\"a\\u0000b\\u001f\""),
	V("{\"\\u0000k\":[\"\\u0000\"]}", "{\"\\u0000k\":[\"\\u0000\"]}"),
};
#undef V

static void check_valid(const struct valid *c, int differential)
{
	struct strbuf out = STRBUF_INIT;
	char name[200];
	const char *why;
	int accepted;

	snprintf(name, sizeof(name), "writes %s", tokens_show(c->in, c->inlen));
	why = tokens_consistent(&T, c->in, c->inlen, &accepted, &out);
	if (!accepted) {
		char *text = tokens_copy(c->in, c->inlen);
		size_t at = 0;
		const char *err = json_tokenize(&T, text, c->inlen, &at);
		fail(name, "refused: %s at %zu", err ? err : "?", at);
		free(text);
	} else if (why && differential) {
		fail(name, "%s", why);
	} else if (out.len != strlen(c->want) ||
		   memcmp(out.buf, c->want, out.len)) {
		fail(name, "got %s, want %s", tokens_show(out.buf, out.len),
		      tokens_show(c->want, strlen(c->want)));
	} else {
		pass(name);
	}
	strbuf_release(&out);
}

static void check_valids(void)
{
	for (size_t i = 0; i < sizeof(valids) / sizeof(*valids); i++)
		check_valid(&valids[i], 1);
	for (size_t i = 0; i < sizeof(nul_valids) / sizeof(*nul_valids); i++)
		check_valid(&nul_valids[i], 0);
}

/* ---------------------------------------------------------------- */
/* 2. Random values against cJSON. */

static int no_ws;       /* random values without whitespace */

static void ws(struct strbuf *sb)
{
	static const char w[] = " \t\r\n";

	if (no_ws || below(4))
		return;
	for (unsigned n = 1 + below(3); n; n--)
		strbuf_add(sb, &w[below(4)], 1);
}

static void utf8(struct strbuf *sb, uint32_t cp)
{
	unsigned char b[4];
	int n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | ((cp >> 6) & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | cp >> 18;
		b[1] = 0x80 | ((cp >> 12) & 0x3f);
		b[2] = 0x80 | ((cp >> 6) & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	strbuf_add(sb, b, n);
}

static void uescape(struct strbuf *sb, uint32_t u)
{
	static const char lower[] = "0123456789abcdef",
			  upper[] = "0123456789ABCDEF";
	char e[6] = { '\\', 'u' };

	for (int i = 0; i < 4; i++) {
		unsigned d = (u >> (12 - 4 * i)) & 0xf;
		e[2 + i] = below(2) ? lower[d] : upper[d];
	}
	strbuf_add(sb, e, 6);
}

/* A code point of 1..4 UTF-8 bytes, never a surrogate nor NUL. */
static uint32_t random_cp(void)
{
	uint32_t cp;

	switch (below(4)) {
	case 0: return 0x20 + below(0x5f);
	case 1: return 0x80 + below(0x780);
	case 2:
		do
			cp = 0x800 + below(0xf800);
		while (cp >= 0xd800 && cp <= 0xdfff);
		return cp;
	default: return 0x10000 + below(0x100000);
	}
}

static void random_string(struct strbuf *sb)
{
	static const char *const esc[] = { "\\\"", "\\\\", "\\/", "\\b",
					   "\\f", "\\n", "\\r", "\\t" };
	uint32_t cp;

	strbuf_add(sb, "\"", 1);
	for (unsigned n = below(4) ? below(8) : below(40); n; n--) {
		switch (below(8)) {
		case 0:
			strbuf_addstr(sb, esc[below(8)]);
			break;
		case 1:         /* \uXXXX in the BMP, no surrogate, no NUL */
			do
				cp = 1 + below(0xffff);
			while (cp >= 0xd800 && cp <= 0xdfff);
			uescape(sb, below(3) ? cp : cp & 0x7f ? cp & 0x7f : 1);
			break;
		case 2:         /* a surrogate pair */
			cp = below(0x100000);
			uescape(sb, 0xd800 + (cp >> 10));
			uescape(sb, 0xdc00 + (cp & 0x3ff));
			break;
		case 3:
			cp = random_cp();
			if (cp == '"' || cp == '\\')
				cp = 'q';
			utf8(sb, cp);
			break;
		default: {
			char c = 0x20 + below(0x5f);
			if (c == '"' || c == '\\')
				c = 'x';
			strbuf_add(sb, &c, 1);
		}
		}
	}
	strbuf_add(sb, "\"", 1);
}

static void digits(struct strbuf *sb, unsigned n, int lead)
{
	for (unsigned i = 0; i < n; i++) {
		char d = '0' + (i == 0 && lead ? 1 + below(9) : below(10));
		strbuf_add(sb, &d, 1);
	}
}

static void random_number(struct strbuf *sb)
{
	if (below(4) == 0)
		strbuf_add(sb, "-", 1);
	if (below(5) == 0)
		strbuf_add(sb, "0", 1);
	else
		digits(sb, 1 + (below(3) ? below(6) : below(20)), 1);
	if (below(3) == 0) {
		strbuf_add(sb, ".", 1);
		digits(sb, 1 + (below(3) ? below(4) : below(20)), 0);
	}
	if (below(4) == 0) {
		int e = (int)below(561) - 280;
		strbuf_add(sb, below(2) ? "e" : "E", 1);
		if (e < 0)
			strbuf_add(sb, "-", 1);
		else if (below(2))
			strbuf_add(sb, "+", 1);
		if (below(8) == 0)
			strbuf_add(sb, "0", 1);
		strbuf_addf(sb, "%d", abs(below(2) ? e / 10 : e));
	}
}

static const char *const pool[] = { "\"a\"", "\"b\"", "\"id\"", "\"\"",
				    "\"\\u0061\"", "\"k\\n\"" };

static void random_value(struct strbuf *sb, int depth)
{
	unsigned kind = depth < 0 ? 6 + below(3) :  /* a container */
			below(depth > 5 || sb->len > 3000 ? 6 : 9), n;

	switch (kind) {
	case 0: strbuf_addstr(sb, "null"); return;
	case 1: strbuf_addstr(sb, below(2) ? "true" : "false"); return;
	case 2: case 3: random_number(sb); return;
	case 4: case 5: random_string(sb); return;
	}
	/* a container: 6, 7 an array, 8 an object */
	strbuf_add(sb, kind == 8 ? "{" : "[", 1);
	ws(sb);
	for (n = below(6); n; n--) {
		if (kind == 8) {
			if (below(3))
				random_string(sb);
			else
				strbuf_addstr(sb, pool[below(6)]);
			ws(sb);
			strbuf_add(sb, ":", 1);
			ws(sb);
		}
		random_value(sb, depth + 1);
		ws(sb);
		if (n > 1) {
			strbuf_add(sb, ",", 1);
			ws(sb);
		}
	}
	strbuf_add(sb, kind == 8 ? "}" : "]", 1);
}

#define RANDOM_VALUES 3000
#define MAX_REPORTS 10

static void check_random(void)
{
	struct strbuf sb = STRBUF_INIT;
	int bad = 0, accepted;
	const char *why;

	rng_state = 0x2545f4914f6cdd1dULL;
	for (int i = 0; i < RANDOM_VALUES; i++) {
		strbuf_reset(&sb);
		no_ws = i & 1;  /* the text may be copied as it is */
		ws(&sb);
		/* some only scalars, most containers */
		random_value(&sb, i % 4 == 0 ? 6 : i % 4 == 1 ? 0 : -1);
		ws(&sb);
		why = tokens_consistent(&T, sb.buf, sb.len, &accepted, NULL);
		if (!accepted)
			why = "refused a valid value";
		if (why && bad++ < MAX_REPORTS)
			fail("random value", "%s: %s", why,
			      tokens_show(sb.buf, sb.len));
	}
	no_ws = 0;
	if (!bad)
		pass("3000 random values write as json_write of cJSON's parse");
	else
		fail("random values", "%d of %d wrong", bad, RANDOM_VALUES);
	strbuf_release(&sb);
}

/* ---------------------------------------------------------------- */
/* 3. Refusals. */

static void refuse(const char *name, const char *s, size_t len)
{
	char *text = tokens_copy(s, len);
	size_t at = (size_t)-1;
	const char *err = json_tokenize(&T, text, len, &at);
	char full[200];

	snprintf(full, sizeof(full), "refuses %s %s", name, tokens_show(s, len));
	if (!err)
		fail(full, "accepted");
	else if (at > len)
		fail(full, "refused (%s) at %zu, beyond the text", err, at);
	else
		pass(full);
	free(text);
}

#define R(name, s) refuse(name, s, sizeof(s) - 1)

static void check_truncated(const char *s)
{
	size_t len = strlen(s);
	int bad = 0;
	char name[200];

	for (size_t n = 0; n < len; n++) {
		char *text = tokens_copy(s, n);
		size_t at = (size_t)-1;
		const char *err = json_tokenize(&T, text, n, &at);

		if ((!err || at > n) && bad++ < MAX_REPORTS)
			fail("truncated value", "%s %s",
			      err ? "refused beyond the text" : "accepted",
			      tokens_show(s, n));
		free(text);
	}
	snprintf(name, sizeof(name), "refuses every strict prefix of %s",
		 tokens_show(s, len));
	if (!bad)
		pass(name);
}

static void nest(struct strbuf *sb, int depth, int obj)
{
	strbuf_reset(sb);
	for (int i = 0; i < depth; i++)
		strbuf_addstr(sb, obj ? "{\"k\":" : "[");
	strbuf_addstr(sb, "0");
	for (int i = 0; i < depth; i++)
		strbuf_addstr(sb, obj ? "}" : "]");
}

static void check_nesting(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *why;
	int accepted;

	for (int obj = 0; obj < 2; obj++) {
		const char *what = obj ? "objects" : "arrays";
		char name[100];

		nest(&sb, JSON_TOKENS_DEPTH, obj);
		why = tokens_consistent(&T, sb.buf, sb.len, &accepted, NULL);
		snprintf(name, sizeof(name), "accepts %d nested %s",
			 JSON_TOKENS_DEPTH, what);
		if (!accepted || why)
			fail(name, "%s", accepted ? why : "refused");
		else
			pass(name);
		nest(&sb, JSON_TOKENS_DEPTH + 1, obj);
		snprintf(name, sizeof(name), "%d nested %s",
			 JSON_TOKENS_DEPTH + 1, what);
		refuse(name, sb.buf, sb.len);
	}
	/* cJSON agrees on where the limit is. */
	nest(&sb, JSON_TOKENS_DEPTH + 1, 0);
	cJSON *v = cJSON_Parse(sb.buf);
	if (v)
		fail("cJSON refuses 1001 nested arrays", "accepted");
	else
		pass("cJSON refuses 1001 nested arrays");
	cJSON_Delete(v);
	strbuf_release(&sb);
}

static void check_refusals(void)
{
	R("empty text", "");
	R("only whitespace", " \t\r\n ");
	R("trailing garbage", "{} x");
	R("two values", "1 2");
	R("two arrays", "[] []");
	R("a comma after the value", "{},");
	R("leading zero", "01");
	R("negative leading zero", "-01");
	R("double zero", "00");
	R("plus sign", "+1");
	R("no integer part", ".5");
	R("no fraction digits", "5.");
	R("no fraction digits in an array", "[1.]");
	R("fraction then exponent without digits", "1.e5");
	R("no exponent digits", "1e");
	R("no exponent digits after sign", "1e+");
	R("only a minus", "-");
	R("minus in an array", "[-]");
	R("double minus", "--1");
	R("hex number", "0x10");
	R("Infinity", "Infinity");
	R("NaN", "NaN");
	R("-Infinity", "-Infinity");
	R("truncated null", "nul");
	R("truncated true", "tru");
	R("capitalised literal", "True");
	R("raw control character in a string", "\"a\x01" "b\"");
	R("raw 0x1f in a string", "[\"\x1f\"]");
	R("raw tab in a string", "\"\t\"");
	R("raw newline in a key", "{\"a\nb\":1}");
	R("lone continuation byte", "\"\x80\"");
	R("overlong NUL", "\"\xc0\x80\"");
	R("overlong 2-byte", "\"\xc1\xbf\"");
	R("overlong 3-byte", "\"\xe0\x80\xaf\"");
	R("encoded surrogate", "\"\xed\xa0\x80\"");
	R("lead byte F5", "\"\xf5\x80\x80\x80\"");
	R("above U+10FFFF", "\"\xf4\x90\x80\x80\"");
	R("byte FF", "\"\xff\"");
	R("sequence cut short", "\"\xe2\x82\"");
	R("sequence cut by the quote", "[\"\xc3\"]");
	R("invalid UTF-8 in a key", "{\"a\xfe\":1}");
	R("lone high surrogate", "\"\\ud800\"");
	R("lone low surrogate", "\"\\udc00\"");
	R("high surrogate then non-surrogate", "\"\\ud800\\u0041\"");
	R("high surrogate then text", "\"\\ud800x\"");
	R("surrogates reversed", "\"\\ude00\\ud83d\"");
	R("two high surrogates", "\"\\ud83d\\ud83d\"");
	R("escape \\x", "\"\\x41\"");
	R("escape \\u with a bad digit", "\"\\u12G4\"");
	R("escape \\u cut short", "\"\\u12\"");
	R("escape \\U", "\"\\U0041\"");
	R("escape \\'", "\"\\'\"");
	R("unterminated string", "\"abc");
	R("string ending in an escaped quote", "\"abc\\\"");
	R("missing colon", "{\"a\" 1}");
	R("missing comma in an object", "{\"a\":1 \"b\":2}");
	R("missing comma in an array", "[1 2]");
	R("trailing comma in an array", "[1,]");
	R("trailing comma in an object", "{\"a\":1,}");
	R("leading comma", "[,1]");
	R("empty member", "{,}");
	R("key without a value", "{\"a\"}");
	R("key without a value after colon", "{\"a\":}");
	R("number as a key", "{1:2}");
	R("single quotes", "['a']");
	R("unopened array", "]");
	R("unopened object", "}");
	R("mismatched brackets", "[}");
	R("1e400", "1e400");
	R("-1e400", "-1e400");
	R("1e400 in an array", "[0,1e400]");
	R("a NUL byte inside", "[\0]");
	R("a NUL byte after the value", "{}\0");
	R("form feed as whitespace", "\f1");
	R("vertical tab as whitespace", "1\v");
	R("no-break space as whitespace", "\xc2\xa0" "1");

	char big[420] = "1";
	memset(big + 1, '0', 400);
	big[401] = '\0';
	refuse("400-digit integer", big, 401);

	check_truncated("{\"a\":[1,-2.5e+3,{\"b\":\"x\\u00e9\\ud83d\\ude00\"}],"
			"\"c\":true,\"d\":null,\"e\":false}");
	check_truncated("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",[[]],{},"
			"\"\\\"\\\\\\n\"]");
	check_truncated("{ \"k\" : [ 0 , 1 ] , \"l\" : { } }");
	check_nesting();
}

/* ---------------------------------------------------------------- */
/* 4. Mutations: never a crash, and what is accepted cJSON accepts too. */

#define MUTATIONS 6000

static void mutate(struct strbuf *sb)
{
	static const unsigned char bytes[] = "\"\\{}[],:0-e.u \t\x80\xc3\xed\xf0"
					      "\xff" "d8e9";
	unsigned pos;
	unsigned char c;

	for (unsigned n = 1 + below(3); n; n--) {
		pos = sb->len ? below(sb->len) : 0;
		c = below(3) ? bytes[below(sizeof(bytes))]
			     : (unsigned char)below(256);
		switch (below(4)) {
		case 0:         /* flip a bit */
			if (sb->len)
				sb->buf[pos] ^= 1 << below(8);
			break;
		case 1:         /* replace */
			if (sb->len)
				sb->buf[pos] = c;
			break;
		case 2:         /* insert */
			strbuf_add(sb, "", 1);
			memmove(sb->buf + pos + 1, sb->buf + pos,
				sb->len - pos - 1);
			sb->buf[pos] = c;
			break;
		default:        /* delete */
			if (sb->len) {
				memmove(sb->buf + pos, sb->buf + pos + 1,
					sb->len - pos - 1);
				sb->len--;
			}
		}
		sb->buf[sb->len] = '\0';
	}
}

static void check_mutations(void)
{
	static const char *const base[] = {
		"{\"a\":[1,-2.5e+3,{\"b\":\"x\\u00e9\\ud83d\\ude00\"}],"
		"\"c\":true,\"d\":null,\"e\":false}",
		"[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",[[]],{},"
		"\"\\\"\\\\\\n\\u0001\"]",
		"{\"k\":[0,1e2,-0.5E-3],\"k\":\"\\/\\b\\f\\r\\t\"}",
		"[123456789012345678,0.1,-0,1.0]",
		"\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"",
	};
	struct strbuf sb = STRBUF_INIT;
	int bad = 0, accepted, took = 0;
	const char *why;
	char name[120];

	rng_state = 0x853c49e6748fea9bULL;
	for (int i = 0; i < MUTATIONS; i++) {
		strbuf_reset(&sb);
		if (i % 3 == 2)
			random_value(&sb, 2);
		else
			strbuf_addstr(&sb, base[below(5)]);
		mutate(&sb);
		why = tokens_consistent(&T, sb.buf, sb.len, &accepted, NULL);
		took += accepted;
		if (why && bad++ < MAX_REPORTS)
			fail("mutated value", "%s: %s", why,
			      tokens_show(sb.buf, sb.len));
	}
	snprintf(name, sizeof(name), "%d mutated values: no crash, the %d "
		 "accepted agree with cJSON", MUTATIONS, took);
	if (!bad)
		pass(name);
	else
		fail(name, "%d inconsistent", bad);
	strbuf_release(&sb);
}

/* ---------------------------------------------------------------- */
/* 5. Accessors. */

static void expect(int cond, const char *name)
{
	if (cond)
		pass(name);
	else
		fail(name, "wrong");
}

static void check_accessors(void)
{
	static const char src[] =
		"{\"a\":1,\"b\":[10,\"x\",{\"c\":null}],\"a\":2,"
		"\"s\":\"h\\u00e9\\u0000z\",\"z\":0,\"n\":-5,"
		"\"big\":9007199254740991,\"big2\":9007199254740992,"
		"\"f\":1.5,\"e\":[],\"o\":{},\"h\":\"h\\u00e9\"}";
	char *text = tokens_copy(src, sizeof(src) - 1);
	size_t at = 0;
	const char *err = json_tokenize(&T, text, sizeof(src) - 1, &at);
	long long v;
	int a, b, s, e, o, h, i;

	if (err) {
		fail("accessors", "test input refused: %s at %zu", err, at);
		free(text);
		return;
	}
	a = json_member(&T, 0, "a");
	expect(a > 0 && T.tok[a].type == JT_NUMBER &&
	       !json_integer(&T, a, &v) && v == 1,
	       "json_member: the first of duplicate keys");
	expect(json_member(&T, 0, "nope") == -1, "json_member: -1 if missing");
	expect(json_member(&T, 0, "") == -1, "json_member: -1 for empty key");
	expect(json_member(&T, 0, "h\xc3\xa9") == -1,
	       "json_member: -1 for a string that is a value");
	b = json_member(&T, 0, "b");
	expect(b > 0 && T.tok[b].type == JT_ARRAY, "json_member: an array");
	expect(b > 0 && json_member(&T, b, "a") == -1,
	       "json_member: -1 on an array");
	expect(a > 0 && json_member(&T, a, "a") == -1,
	       "json_member: -1 on a number");
	expect(b > 0 && json_length(&T, b) == 3, "json_length of an array");
	expect(json_length(&T, 0) == 12, "json_length of an object: members");
	e = json_member(&T, 0, "e");
	o = json_member(&T, 0, "o");
	expect(e > 0 && json_length(&T, e) == 0, "json_length of []");
	expect(o > 0 && json_length(&T, o) == 0, "json_length of {}");
	expect(a > 0 && json_length(&T, a) == 0, "json_length of a scalar");
	if (b > 0) {
		i = json_element(&T, b, 0);
		expect(i > 0 && !json_integer(&T, i, &v) && v == 10,
		       "json_element 0");
		i = json_element(&T, b, 1);
		expect(i > 0 && json_string_is(&T, i, "x") &&
		       !json_string_is(&T, i, "") &&
		       !json_string_is(&T, i, "xx"),
		       "json_element 1, json_string_is");
		i = json_element(&T, b, 2);
		expect(i > 0 && T.tok[i].type == JT_OBJECT &&
		       json_member(&T, i, "c") > 0 &&
		       T.tok[json_member(&T, i, "c")].type == JT_NULL,
		       "json_element 2: an object");
		expect(json_element(&T, b, 3) == -1 &&
		       json_element(&T, b, 1000000) == -1,
		       "json_element: -1 past the end");
	}
	expect(json_element(&T, 0, 0) == -1, "json_element: -1 on an object");
	expect(a > 0 && json_element(&T, a, 0) == -1,
	       "json_element: -1 on a number");
	expect(e > 0 && json_element(&T, e, 0) == -1,
	       "json_element: -1 on []");

	s = json_member(&T, 0, "s");
	expect(s > 0 && json_string(&T, s) &&
	       !strcmp(json_string(&T, s), "h\xc3\xa9"),
	       "json_string: decoded, up to \\u0000");
	expect(s > 0 && !json_string_is(&T, s, "h\xc3\xa9"),
	       "json_string_is: \\u0000 inside is not the prefix");
	h = json_member(&T, 0, "h");
	expect(h > 0 && json_string_is(&T, h, "h\xc3\xa9") &&
	       !json_string_is(&T, h, "h") &&
	       !strcmp(json_string(&T, h), "h\xc3\xa9"),
	       "json_string_is: decoded escapes");
	expect(json_string(&T, 0) == NULL && (a < 0 || !json_string(&T, a)),
	       "json_string: NULL for a non-string");
	expect(a > 0 && !json_string_is(&T, a, "1"),
	       "json_string_is: a number is no string");
	expect(json_string_is(&T, 1, "a"), "json_string_is: a key token");

	i = json_member(&T, 0, "z");
	expect(i > 0 && !json_integer(&T, i, &v) && v == 0, "json_integer 0");
	i = json_member(&T, 0, "n");
	expect(i > 0 && !json_integer(&T, i, &v) && v == -5,
	       "json_integer -5");
	i = json_member(&T, 0, "big");
	expect(i > 0 && !json_integer(&T, i, &v) && v == 9007199254740991LL,
	       "json_integer 9007199254740991");
	i = json_member(&T, 0, "big2");
	expect(i > 0 && json_integer(&T, i, &v) == -1,
	       "json_integer: -1 for 9007199254740992");
	i = json_member(&T, 0, "f");
	expect(i > 0 && json_integer(&T, i, &v) == -1,
	       "json_integer: -1 for 1.5");
	expect(s > 0 && json_integer(&T, s, &v) == -1,
	       "json_integer: -1 for a string");
	expect(b > 0 && json_integer(&T, b, &v) == -1,
	       "json_integer: -1 for an array");
	free(text);

	/* The root a scalar, and -9007199254740991 at the other end. */
	char num[] = " -9007199254740991 ";
	if (json_tokenize(&T, num, sizeof(num) - 1, &at))
		fail("json_integer -9007199254740991", "refused");
	else
		expect(T.n == 1 && !json_integer(&T, 0, &v) &&
		       v == -9007199254740991LL &&
		       json_length(&T, 0) == 0 && json_member(&T, 0, "a") == -1,
		       "json_integer -9007199254740991");
}

/* Many long strings: each json_string() stays valid until json_tokenize. */
static void check_long_strings(void)
{
	struct strbuf src = STRBUF_INIT, want[6];
	const char *got[6];
	size_t at;
	int good = 1;

	strbuf_addstr(&src, "[");
	for (int k = 0; k < 6; k++) {
		struct strbuf *w = &want[k];

		*w = (struct strbuf)STRBUF_INIT;
		strbuf_addstr(&src, k ? ",\"" : "\"");
		for (int r = 0; r < 700 * (k + 1); r++) {
			char c = 'a' + (r + k) % 26;
			if (k % 2 && r % 7 == 0) {
				strbuf_addstr(&src, "\\n\\u00e9");
				strbuf_addstr(w, "\n\xc3\xa9");
			} else {
				strbuf_add(&src, &c, 1);
				strbuf_add(w, &c, 1);
			}
		}
		strbuf_addstr(&src, "\"");
	}
	strbuf_addstr(&src, "]");
	char *text = tokens_copy(src.buf, src.len);
	if (json_tokenize(&T, text, src.len, &at)) {
		fail("long strings", "refused at %zu", at);
		good = 0;
	}
	for (int k = 0; good && k < 6; k++)
		got[k] = json_string(&T, json_element(&T, 0, k));
	for (int k = 0; good && k < 6; k++)
		good = got[k] && !strcmp(got[k], want[k].buf) &&
		       json_string_is(&T, json_element(&T, 0, k), want[k].buf);
	if (good) {
		/* and again: a text refused does not break the next */
		char bad[] = "[\"\\x\"]";
		good = json_tokenize(&T, bad, sizeof(bad) - 1, &at) != NULL &&
		       !json_tokenize(&T, text, src.len, &at) &&
		       (got[0] = json_string(&T, json_element(&T, 0, 5))) &&
		       !strcmp(got[0], want[5].buf);
	}
	expect(good, "json_string: six strings of 700..4200 bytes at once");
	for (int k = 0; k < 6; k++)
		strbuf_release(&want[k]);
	strbuf_release(&src);
	free(text);
}

int main(void)
{
	check_valids();
	check_random();
	check_refusals();
	check_mutations();
	check_accessors();
	check_long_strings();
	json_tokens_release(&T);
	return unit_status();
}
