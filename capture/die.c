// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"

#define MAX_CLEANUPS 16

static struct {
	void (*fn)(void *);
	void *arg;
} cleanups[MAX_CLEANUPS];

int on_failure(void (*fn)(void *arg), void *arg)
{
	for (int i = 0; i < MAX_CLEANUPS; i++) {
		if (!cleanups[i].fn) {
			cleanups[i].fn = fn;
			cleanups[i].arg = arg;
			return i;
		}
	}
	die(EXIT_CAPTURE_FAILED, "too many cleanup handlers");
}

void cancel_on_failure(int handle)
{
	cleanups[handle].fn = NULL;
}

/* Run cleanups newest first; each runs at most once even if it dies. */
static void run_cleanups(void)
{
	for (int i = MAX_CLEANUPS - 1; i >= 0; i--) {
		void (*fn)(void *) = cleanups[i].fn;

		cleanups[i].fn = NULL;
		if (fn)
			fn(cleanups[i].arg);
	}
}

static _Noreturn void vdie(enum exit_code code, const char *file, long line,
			   const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("capture: ", stderr);
	if (file && line > 0)
		fprintf(stderr, "%s:%ld: ", file, line);
	else if (file)
		fprintf(stderr, "%s: ", file);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	run_cleanups();
	exit(code);
}

void die(enum exit_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, NULL, 0, fmt, ap);
}

void die_at(enum exit_code code, const char *file, long line,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, file, line, fmt, ap);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("capture: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("capture: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void *checked(void *p)
{
	if (!p)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	return p;
}

void *xmalloc(unsigned long n)
{
	return checked(malloc(n ? n : 1));
}

void *xcalloc(unsigned long n, unsigned long size)
{
	return checked(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, unsigned long n)
{
	return checked(realloc(p, n ? n : 1));
}

char *xstrdup(const char *s)
{
	return checked(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return checked(s);
}
