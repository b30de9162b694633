// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include "err.h"

int cap_fail(struct cap_err *err, enum exit_code code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void die_err(const struct cap_err *err)
{
	die(err->code, "%s", err->msg);
}
