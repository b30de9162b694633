// SPDX-License-Identifier: MIT
/* A system's audit domain, its axes: see audit-domain.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "audit-domain.h"
#include "die.h"

static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	return s;
}

void audit_add_label(char ***labels, size_t *n, char *s)
{
	*labels = xrealloc(*labels, (*n + 1) * sizeof(**labels));
	(*labels)[(*n)++] = s;
}

void audit_add_row(struct audit_axes *ax, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	audit_add_label(&ax->rows, &ax->nrows, vformat(fmt, ap));
	va_end(ap);
}

void audit_add_col(struct audit_axes *ax, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	audit_add_label(&ax->cols, &ax->ncols, vformat(fmt, ap));
	va_end(ap);
}

void audit_axes_free(struct audit_axes *ax)
{
	for (size_t i = 0; i < ax->nrows; i++)
		free(ax->rows[i]);
	for (size_t i = 0; i < ax->ncols; i++)
		free(ax->cols[i]);
	free(ax->rows);
	free(ax->cols);
}
