// SPDX-License-Identifier: MIT
/*
 * The JVM agent's pure-C part (jvm/agent-plan.c), compiled in as it is
 * built into the agent: the plan's lines, a func's and an expression's
 * syntax, the return sites and loop heads of hand-made bytecode, and
 * Java's UTF-16 as UTF-8.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "jvm/agent-plan.c"
#include "tests/unit/unit.h"

static void plans(void)
{
	char path[] = "/tmp/test-jvm-plan-XXXXXX", why[AP_WHY];
	const char text[] = JW_PLAN_HEAD "\n"
		"site\t0\t0\t3\t4\tpkg.C.m\n"
		"read\t0\t0\t5\ts\t8\t0\t-1\tx.y\n"
		"read\t0\t1\t6\tu\t1\t0\t-1\tk\tA\t-\tC\n"
		"site\t1\t1\t3\t7\tpkg.C.m\n";
	struct ap_plan p;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		abort();
	close(fd);
	check("plan: read", !ap_plan_read(path, &p, why, sizeof(why)) && p.nsites == 2 &&
	      p.sites[0].nreads == 2 && p.sites[0].reads[1].nnames == 3 &&
	      !p.sites[0].reads[1].names[1] && !strcmp(p.sites[0].reads[1].names[2], "C") &&
	      p.sites[1].at_exit == 1 && p.sites[0].reads[0].line == 5, why);
	ap_plan_free(&p);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, "read\t9\t0\n", 8) != 8)
		abort();
	close(fd);
	check("plan: a malformed line refused at its line",
	      ap_plan_read(path, &p, why, sizeof(why)) && strstr(why, ":6: malformed"), why);
	unlink(path);
}

static void funcs(void)
{
	struct ap_func f;
	char why[AP_WHY];

	check("func: class and method", !ap_func_parse("a.b.C$D.run", &f, why, sizeof(why)) &&
	      !strcmp(f.cls, "a.b.C$D") && !strcmp(f.method, "run") && !f.line && !f.desc[0], why);
	check("func: a descriptor and a line",
	      !ap_func_parse("a.C.m(JLjava/lang/String;)V:42", &f, why, sizeof(why)) &&
	      !strcmp(f.desc, "(JLjava/lang/String;)V") && f.line == 42 && !strcmp(f.method, "m"), why);
	check("func: a line alone", !ap_func_parse("a.C.m:7", &f, why, sizeof(why)) &&
	      f.line == 7 && !strcmp(f.cls, "a.C"), why);
	check("func: no class refused", ap_func_parse("m", &f, why, sizeof(why)) &&
	      strstr(why, "CLASS.METHOD"), why);
	check("func: line 0 refused", ap_func_parse("a.C.m:0", &f, why, sizeof(why)) &&
	      strstr(why, "LINE"), why);
}

static void exprs(void)
{
	struct ap_expr x;
	char why[AP_WHY];

	check("expr: path", !ap_expr_parse("this.a[3].b$1.(x.y.Z).c", &x, why, sizeof(why)) &&
	      !strcmp(x.root, "this") && x.n == 5 && x.step[1].kind == AP_INDEX &&
	      x.step[1].index == 3 && x.step[3].kind == AP_CAST &&
	      !strcmp(x.step[3].name, "x.y.Z") && !strcmp(x.step[4].name, "c"), why);
	check("expr: len", !ap_expr_parse("len(n.log)", &x, why, sizeof(why)) && x.is_len &&
	      x.n == 1, why);
	check("expr: a stray word refused", ap_expr_parse("a.b c", &x, why, sizeof(why)) &&
	      strstr(why, "unexpected"), why);
	check("expr: len without ) refused", ap_expr_parse("len(a", &x, why, sizeof(why)) &&
	      strstr(why, "without its )"), why);
	check("expr: a negative index refused", ap_expr_parse("a[-1]", &x, why, sizeof(why)), why);
}

static void bytecode(void)
{
	/* iconst_0; istore_1; L2: iload_1; ifeq +5; iinc 1 1; goto -5 (L2); ... ireturn */
	const unsigned char loop[] = { 0x03, 0x3c, 0x1b, 0x99, 0x00, 0x09, 0x84, 0x01, 0x01,
				       0xa7, 0xff, 0xf9, 0x1b, 0xac };
	/* L0: iload_0; ifne L0 (-1); return */
	const unsigned char head[] = { 0x1a, 0x9a, 0xff, 0xff, 0xb1 };
	/* iload_0; tableswitch (pad 2) default +28, 0..1 -> +28, +29; nop; ireturn; ireturn */
	unsigned char sw[] = { 0x1a, 0xaa, 0, 0, 0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0, 1,
			       0, 0, 0, 28, 0, 0, 0, 29, 0x00, 0x00, 0x00, 0x00, 0x00, 0xac, 0xac };
	int at[8], loop0, n;

	n = ap_returns(loop, sizeof(loop), at, 8, &loop0);
	check("bytecode: a loop's return", n == 1 && at[0] == 13 && !loop0, "");
	n = ap_returns(head, sizeof(head), at, 8, &loop0);
	check("bytecode: a loop's head at 0", n == 1 && at[0] == 4 && loop0, "");
	n = ap_returns(sw, sizeof(sw), at, 8, &loop0);
	check("bytecode: a tableswitch walked", n == 2 && at[0] == 29 && at[1] == 30 && !loop0, "");
	check("bytecode: truncated refused", ap_returns(sw, 10, at, 8, &loop0) < 0, "");
}

static void utf8(void)
{
	const uint16_t s[] = { 'a', 0xe9, 0x20ac, 0xd83d, 0xde00, 0xd800, 'z' };
	unsigned char out[32] = { 0 };
	size_t n = ap_utf8(s, 7, out, sizeof(out));

	check("utf8: every plane, a lone surrogate as U+FFFD",
	      n == 1 + 2 + 3 + 4 + 3 + 1 &&
	      !memcmp(out, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbdz", n), "");
	memset(out, 0, sizeof(out));
	n = ap_utf8(s, 7, out, 4);
	check("utf8: cut before a character that does not fit, length whole",
	      n == 14 && !memcmp(out, "a\xc3\xa9\0", 4), "");
}

int main(void)
{
	plans();
	funcs();
	exprs();
	bytecode();
	utf8();
	return unit_status();
}
