/* SPDX-License-Identifier: MIT */
/*
 * How every unit test reports: "ok - NAME" or "not ok - NAME: WHY", one
 * line each (tests/run counts them); main() returns unit_status().
 */
#ifndef TESTS_UNIT_UNIT_H
#define TESTS_UNIT_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "capture/err.h"

static int unit_failures;

__attribute__((unused)) static void pass(const char *name)
{
	printf("ok - %s\n", name);
}

__attribute__((unused, format(printf, 2, 3)))
static void fail(const char *name, const char *why, ...)
{
	va_list ap;

	printf("not ok - %s: ", name);
	va_start(ap, why);
	vprintf(why, ap);
	va_end(ap);
	putchar('\n');
	unit_failures++;
}

/* pass(@name) if @ok, else fail it saying @why. */
__attribute__((unused))
static void check(const char *name, int ok, const char *why)
{
	if (ok)
		pass(name);
	else
		fail(name, "%s", why);
}

/*
 * A library's failure @got is of kind @code with the message @msg exactly
 * (whole); what it took is released.
 */
__attribute__((unused))
static void expect_err(const char *name, struct cap_err *got,
		       enum exit_code code, const char *msg)
{
	if (got->code != code)
		fail(name, "exit code %d, want %d (%s)", got->code, code,
		     cap_err_text(got));
	else if (strcmp(cap_err_text(got), msg))
		fail(name, "message \"%s\", want \"%s\"", cap_err_text(got), msg);
	else
		pass(name);
	cap_err_release(got);
}

__attribute__((unused)) static int unit_status(void)
{
	return unit_failures != 0;
}

#endif
