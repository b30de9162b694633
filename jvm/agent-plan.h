/* SPDX-License-Identifier: MIT */
/*
 * The JVM agent's part that needs no JVM (jvm/agent-plan.c): the plan
 * capture wrote (jvm/wire.h), the expressions of its reads, the places
 * in a method's bytecode where it returns, and Java's strings as UTF-8.
 * Pure C over its arguments, so that a unit test exercises it as is.
 */
#ifndef JVM_AGENT_PLAN_H
#define JVM_AGENT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define AP_MAX_STEPS 8          /* of an expression: fields, indexes, casts */
#define AP_WHY 512              /* bytes of a refusal */

struct ap_read {
	int slot;
	long line;
	char kind;              /* 's', 'u' or 'b' */
	int size, flags, word;
	char *expr;
	char **names;           /* a names table's; NULL: "-" */
	int nnames;
};

struct ap_site {
	int id, at_exit;
	long func_line, site_line;
	char *func;
	struct ap_read *reads;
	int nreads;
};

struct ap_plan {
	struct ap_site *sites;
	int nsites;
};

/* 0, or -1 with @why: the file's "LINE: what" (its own line, not the spec's). */
int ap_plan_read(const char *path, struct ap_plan *p, char *why, size_t cap);
void ap_plan_free(struct ap_plan *p);

/*
 * A func of a spec, as a Java method: CLASS.METHOD, CLASS.METHOD(DESC)
 * (its JVM descriptor, for an overloaded one) and either with :LINE (a
 * site at that source line).  @class is CLASS with dots (a nested class
 * with '$').  0, or -1 with @why.
 */
struct ap_func {
	char cls[512], method[256], desc[512];
	long line;              /* 0: none */
};
int ap_func_parse(const char *text, struct ap_func *f, char *why, size_t cap);

/* An expression: [len(] [*] ROOT STEP... [)], a STEP .NAME, [N] or .(CLASS). */
enum ap_step_kind { AP_FIELD, AP_INDEX, AP_CAST };
struct ap_step {
	enum ap_step_kind kind;
	char name[256];         /* a field's, or a cast's class (dots) */
	long index;
};
struct ap_expr {
	int is_len, star;
	char root[256];
	struct ap_step step[AP_MAX_STEPS];
	int n;
};
int ap_expr_parse(const char *text, struct ap_expr *x, char *why, size_t cap);

/*
 * The offsets of @code's return instructions (ireturn ... return), at
 * most @max, and whether any branch jumps to offset 0 (*@loop_at_0: the
 * first instruction is a loop's head, run again without a new call).
 * How many, or -1 if the bytecode does not parse.
 */
int ap_returns(const unsigned char *code, int len, int *out, int max, int *loop_at_0);

/*
 * @s's @n UTF-16 units as UTF-8, at most @cap bytes into @out (a
 * character that does not fit whole is left out, and those after it); a
 * lone surrogate is U+FFFD.  Returns the whole string's UTF-8 length.
 */
size_t ap_utf8(const uint16_t *s, size_t n, unsigned char *out, size_t cap);

#endif
