// SPDX-License-Identifier: MIT
/*
 * The deterministic JSON writer against what Python and RFC 8785 write, and
 * the check readers make that a record is something it can write.
 */
#include <stdio.h>
#include <string.h>
#include "capture/json.h"
#include "unit.h"

static void expect(const char *name, const char *input, enum json_style style,
		   const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *v = cJSON_Parse(input);

	if (!v) {
		fail(name, "test input does not parse");
		return;
	}
	json_write(&sb, v, style);
	if (strcmp(sb.buf, want))
		fail(name, "got %s, want %s", sb.buf, want);
	else
		pass(name);
	strbuf_release(&sb);
	cJSON_Delete(v);
}

/* json_check_record() on @input: NULL (@want NULL) or the problem. */
static void refuses(const char *name, const char *input, const char *want)
{
	cJSON *v = cJSON_Parse(input);
	const char *got;

	if (!v) {
		fail(name, "test input does not parse");
		return;
	}
	got = json_check_record(v);
	if (want ? got && strstr(got, want) : !got)
		pass(name);
	else
		fail(name, "got %s, want %s", got ? got : "accepted",
		     want ? want : "accepted");
	cJSON_Delete(v);
}

static void check_records(void)
{
	refuses("accepts ASCII, escapes, UTF-8 of every length",
		"{\"a\":[\"x\\u0001\",\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"],"
		"\"\xc3\xb6\":{\"n\":1e308}}", NULL);
	refuses("invalid byte in a string", "{\"a\":[1,{\"b\":\"x\xffy\"}]}",
		"invalid UTF-8 in a JSON string");
	refuses("invalid byte in a key", "{\"a\xfe\":1}",
		"invalid UTF-8 in a JSON key");
	refuses("overlong form", "[\"\xc0\xaf\"]", "invalid UTF-8");
	refuses("overlong 3-byte form", "[\"\xe0\x80\xaf\"]", "invalid UTF-8");
	refuses("encoded surrogate", "[\"\xed\xa0\x80\"]", "invalid UTF-8");
	refuses("above U+10FFFF", "[\"\xf4\x90\x80\x80\"]", "invalid UTF-8");
	refuses("sequence cut short", "[\"\xe2\x82\"]", "invalid UTF-8");
	refuses("lone continuation byte", "\"a\x80\"", "invalid UTF-8");
	refuses("number beyond a double", "{\"a\":{\"b\":[0,1e999]}}",
		"not finite");
	refuses("negative number beyond a double", "[-1e999]", "not finite");
}

/* Integers a long long cannot hold are not integers to json_get_int(). */
static void check_int_range(void)
{
	cJSON *v = cJSON_Parse("{\"big\":1e300,\"neg\":-9223372036854775808,"
			       "\"edge\":9223372036854775808}");
	long long n = 0;
	int ok = v && json_get_int(v, "big", &n) == -1 &&
		 json_get_int(v, "edge", &n) == -1 &&
		 !json_get_int(v, "neg", &n) && n == (-9223372036854775807LL - 1);

	check("json_get_int refuses what a long long cannot hold", ok, "it did not");
	cJSON_Delete(v);
}

int main(void)
{
	/* Expected strings are what json.dumps() prints for the same input. */
	expect("python separators, declared key order",
	       "{\"b\":1,\"a\":[true,false,null]}", JSON_PYTHON,
	       "{\"b\": 1, \"a\": [true, false, null]}");
	expect("python ensure_ascii escapes", "\"\\u00e9\\ud83d\\ude00\\n\\u0001\"",
	       JSON_PYTHON, "\"\\u00e9\\ud83d\\ude00\\n\\u0001\"");
	expect("python float repr", "[0.5, 1e-05, 1e+16, 123.25, -0.1]",
	       JSON_PYTHON, "[0.5, 1e-05, 1e+16, 123.25, -0.1]");
	expect("integers print as integers", "[0, -3, 9007199254740991]",
	       JSON_PYTHON, "[0, -3, 9007199254740991]");
	/* RFC 8785 appendix examples: sorting and number forms. */
	expect("canonical sorts keys by UTF-16 units",
	       "{\"\\u20ac\":1,\"\\r\":2,\"\\ud83d\\ude00\":3,\"1\":4,\"\\u00f6\":5}",
	       JSON_CANONICAL,
	       "{\"\\r\":2,\"1\":4,\"\xc3\xb6\":5,\"\xe2\x82\xac\":1,\"\xf0\x9f\x98\x80\":3}");
	expect("canonical numbers", "[1e21, 1e-7, 0.000001, 333333333.3333333]",
	       JSON_CANONICAL, "[1e+21,1e-7,0.000001,333333333.3333333]");
	expect("compact keeps declared order", "{\"z\":{\"y\":1},\"a\":\"s\"}",
	       JSON_COMPACT, "{\"z\":{\"y\":1},\"a\":\"s\"}");
	check_records();
	check_int_range();
	return unit_status();
}
