// SPDX-License-Identifier: MIT
/*
 * What capture grade --tlc writes for TLC and reads back (capture/tlc.h):
 * JSON values as TLA+ values, the constants of a TLC configuration, what
 * TLC printed of PrintT and of a behavior.  TLC itself runs in tests/tlc.
 */
#include <stdlib.h>
#include <string.h>
#include "capture/tlc.h"
#include "unit.h"

/* @json as TLA+, or "ERR: message". */
static char *tla(const char *json)
{
	static char buf[512];
	struct strbuf sb = STRBUF_INIT;
	struct cap_err err;
	cJSON *v = cJSON_Parse(json);

	if (tla_value(&sb, v, &err))
		snprintf(buf, sizeof(buf), "ERR: %s", cap_err_text(&err));
	else
		snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	cJSON_Delete(v);
	return buf;
}

static void expect_tla(const char *name, const char *json, const char *want)
{
	const char *got = tla(json);

	if (!strcmp(got, want))
		pass(name);
	else
		fail(name, "%s gave %s, not %s", json, got, want);
}

static void values(void)
{
	expect_tla("scalars", "[1, -2, true, false, \"a\\\"b\\\\c\"]",
		   "<<1, (0 - 2), TRUE, FALSE, \"a\\\"b\\\\c\">>");
	expect_tla("identifier keys: a record", "{\"lockState\": \"locked\", \"pc\": {\"0\": \"idle\"}}",
		   "[lockState |-> \"locked\", pc |-> (\"0\" :> \"idle\")]");
	expect_tla("other keys: a function", "{\"1\": 1, \"2\": 0}", "(\"1\" :> 1 @@ \"2\" :> 0)");
	expect_tla("a reserved word makes a function", "{\"IF\": 1, \"x\": 2}",
		   "(\"IF\" :> 1 @@ \"x\" :> 2)");
	expect_tla("{} and [] are <<>>", "[{}, []]", "<<<<>>, <<>>>>");
	expect_tla("null is refused", "{\"x\": null}", "ERR: null has no TLA+ value");
	expect_tla("a fraction is refused", "1.5", "ERR: the number 1.5 is no integer: TLA+ has no literal of it");
	expect_tla("a non-ASCII string is refused", "\"caf\\u00e9\"",
		   "ERR: the string \"caf\xc3\xa9\" has a character TLA+ strings have not (byte 0xc3)");
}

static void constants(void)
{
	static const char cfg[] =
		"\\* a comment CONSTANT X = 1\n"
		"CONSTANTS\n    s1 = 1\n    Server = {s1, \"two words\"} (* a\n (* nested *) comment *)\n"
		"    Timeout <- MCTimeout\n"
		"INIT Init NEXT Next\nCONSTANT Nil = 0\nINVARIANT Inv\n";
	struct tlc_constant *c;
	struct cap_err err;
	size_t n;

	if (tlc_cfg_constants(cfg, "x.cfg", &c, &n, &err)) {
		fail("constants of a configuration", "%s", cap_err_text(&err));
		return;
	}
	check("constants of a configuration, in order, comments out",
	      n == 4 && !strcmp(c[0].name, "s1") && !strcmp(c[0].stmt, "s1 = 1") &&
	      !strcmp(c[1].name, "Server") &&
	      !strcmp(c[1].stmt, "Server = {s1, \"two words\"}") &&
	      !strcmp(c[2].stmt, "Timeout <- MCTimeout") && !strcmp(c[3].stmt, "Nil = 0"),
	      n ? c[n - 1].stmt : "none");
	tlc_constants_free(c, n);
	check("an unclosed comment is refused with its line",
	      tlc_cfg_constants("CONSTANT X = 1\n(* open\n", "y.cfg", &c, &n, &err) &&
	      strstr(cap_err_text(&err), "y.cfg:2: unclosed (* comment"), cap_err_text(&err));
	check("a constant statement without = is refused",
	      tlc_cfg_constants("CONSTANTS\n  X 1\n", "z.cfg", &c, &n, &err) &&
	      strstr(cap_err_text(&err), "z.cfg:2:"), cap_err_text(&err));
}

static void printed(void)
{
	static const char out[] = "Starting...\n<<\"WVPost\", 3, 1>>\n<<\"Other\", 1, 1>>\n"
				  "<<\"WVPost\", 12, 2>>\nFinished\n";
	struct tlc_hit *h;
	struct cap_err err;
	size_t n;

	check("PrintT's lines read back",
	      !tlc_printed(out, "WVPost", &h, &n, &err) && n == 2 && h[0].index == 3 &&
	      h[0].step == 1 && h[1].index == 12 && h[1].step == 2, "wrong hits");
	free(h);
	check("a line of the tag without window and step is refused",
	      tlc_printed("<<\"WVPost\", x>>\n", "WVPost", &h, &n, &err) && n == 0,
	      "accepted");
	check("the last value a behavior shows",
	      tlc_last_value("State 1:\n/\\ wvStep = 0\n/\\ x = 2\nState 2:\n/\\ wvStep = 2\n",
			     "wvStep") == 2 && tlc_last_value("none\n", "wvStep") == -1,
	      "wrong value");
}

int main(void)
{
	values();
	constants();
	printed();
	return unit_status();
}
