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

int cap_fail_at(struct cap_err *err, enum exit_code code, const char *file,
		long line, const char *fmt, ...)
{
	va_list ap;
	int n = line > 0 ? snprintf(err->msg, sizeof(err->msg), "%s:%ld: ", file, line) :
		snprintf(err->msg, sizeof(err->msg), "%s: ", file);

	err->code = code;
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
	return -1;
}

void die_err(const struct cap_err *err)
{
	die(err->code, "%s", err->msg);
}
