// SPDX-License-Identifier: MIT
/* The deterministic JSON writer against what Python and RFC 8785 write. */
#include <stdio.h>
#include <string.h>
#include "capture/json.h"

static int failed;

static void expect(const char *name, const char *input, enum json_style style,
		   const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *v = cJSON_Parse(input);

	if (!v) {
		printf("not ok - %s: test input does not parse\n", name);
		failed++;
		return;
	}
	json_write(&sb, v, style);
	if (strcmp(sb.buf, want)) {
		printf("not ok - %s: got %s, want %s\n", name, sb.buf, want);
		failed++;
	} else {
		printf("ok - %s\n", name);
	}
	strbuf_release(&sb);
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
	return failed != 0;
}
