/* SPDX-License-Identifier: MIT */
/*
 * How a library fails (docs/architecture.md, "Errors"): it returns -1 or
 * NULL and fills the caller's struct cap_err with the kind of failure,
 * told as the exit code the README gives it, and a message naming the
 * file and what failed.  The command decides: it dies with both
 * (die_err()), adds where it was (die_at()), or goes on.
 */
#ifndef CAPTURE_ERR_H
#define CAPTURE_ERR_H

#include "die.h"

/*
 * A message of any length: msg holds it, cut short if it is longer, and
 * then whole holds it all (malloc'ed; else NULL).  die_err() says it
 * whole; a caller that goes on after a failure calls cap_err_release().
 */
struct cap_err {
	enum exit_code code;
	char msg[512];
	char *whole;
};

/* Fill @err with @code and the message; returns -1, for "return cap_fail(...)". */
int cap_fail(struct cap_err *err, enum exit_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The same, with "FILE:LINE: " in front as die_at() prints it (line 0:
 * "FILE: "), for a reader's failure at a line of its input.
 */
int cap_fail_at(struct cap_err *err, enum exit_code code, const char *file,
		long line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The whole message. */
const char *cap_err_text(const struct cap_err *err);
/* Free what a long message took (@err stays readable up to msg's size). */
void cap_err_release(struct cap_err *err);

/* die() with @err's code and whole message. */
_Noreturn void die_err(const struct cap_err *err);

#endif
