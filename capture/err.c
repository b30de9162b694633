// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"

/* @err's message: @where ("FILE:LINE: " or "") and then @fmt's. */
static int vfail(struct cap_err *err, enum exit_code code, const char *where,
		 const char *fmt, va_list ap)
{
	char *text;

	if (vasprintf(&text, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	err->code = code;
	err->whole = xasprintf("%s%s", where, text);
	free(text);
	snprintf(err->msg, sizeof(err->msg), "%s", err->whole);
	if (strlen(err->whole) < sizeof(err->msg)) {
		free(err->whole);
		err->whole = NULL;
	}
	return -1;
}

int cap_fail(struct cap_err *err, enum exit_code code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(err, code, "", fmt, ap);
	va_end(ap);
	return rc;
}

int cap_fail_at(struct cap_err *err, enum exit_code code, const char *file,
		long line, const char *fmt, ...)
{
	char *where = line > 0 ? xasprintf("%s:%ld: ", file, line) :
				 xasprintf("%s: ", file);
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(err, code, where, fmt, ap);
	va_end(ap);
	free(where);
	return rc;
}

const char *cap_err_text(const struct cap_err *err)
{
	return err->whole ? err->whole : err->msg;
}

void cap_err_release(struct cap_err *err)
{
	free(err->whole);
	err->whole = NULL;
}

void die_err(const struct cap_err *err)
{
#ifdef CAPTURE_DIE_HOOK
	/*
	 * A hooked die() returns to the fuzz harness through longjmp, past
	 * the frame that holds @err: keep its whole message reachable until
	 * the next one, not a leak to LeakSanitizer.
	 */
	static char *dying;

	free(dying);
	dying = err->whole;
#endif
	die(err->code, "%s", cap_err_text(err));
}
