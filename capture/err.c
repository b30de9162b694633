// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include "err.h"

static int vfail(struct cap_err *err, enum exit_code code, int at,
		 const char *fmt, va_list ap)
{
	err->code = code;
	vsnprintf(err->msg + at, sizeof(err->msg) - at, fmt, ap);
	return -1;
}

int cap_fail(struct cap_err *err, enum exit_code code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(err, code, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int cap_fail_at(struct cap_err *err, enum exit_code code, const char *file,
		long line, const char *fmt, ...)
{
	va_list ap;
	int at, rc;

	if (line > 0)
		at = snprintf(err->msg, sizeof(err->msg), "%s:%ld: ", file, line);
	else
		at = snprintf(err->msg, sizeof(err->msg), "%s: ", file);
	if (at < 0)
		at = 0;
	else if ((size_t)at >= sizeof(err->msg))
		at = (int)sizeof(err->msg) - 1;
	va_start(ap, fmt);
	rc = vfail(err, code, at, fmt, ap);
	va_end(ap);
	return rc;
}

void die_err(const struct cap_err *err)
{
	die(err->code, "%s", err->msg);
}
