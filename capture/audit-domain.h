/* SPDX-License-Identifier: MIT */
/*
 * A system's audit domain (audit.h): the matrix of pre-state classes
 * (rows) by action classes (columns) its windows fall in, what puts a
 * window in its cell, and the cells the system cannot reach.  What a
 * system supplies and the audit (audit.c) and the impossibility windows
 * (impossible.c) read.
 */
#ifndef CAPTURE_AUDIT_DOMAIN_H
#define CAPTURE_AUDIT_DOMAIN_H

#include <stddef.h>
#include <cJSON.h>

struct strbuf;
struct window;

/* Row and column labels of a domain, in display order. */
struct audit_axes {
	char **rows;
	size_t nrows;
	char **cols;
	size_t ncols;
};
void audit_add_row(struct audit_axes *ax, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void audit_add_col(struct audit_axes *ax, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void audit_axes_free(struct audit_axes *ax);
/* Append label @s (taken, not copied) to the @n of @labels. */
void audit_add_label(char ***labels, size_t *n, char *s);

struct audit_domain {
	/* One sentence on what a cell is (exhaustive, or classes and why). */
	const char *describes;
	/*
	 * Optional, for a domain finite only given the run's parameters
	 * (locksvc's clients): called for every window during the audit's
	 * one pass over the windows, to note them in @learned (an object).
	 */
	void (*learn)(cJSON *learned, const struct window *w);
	/* Fill @ax, after that pass; @learned is what learn() noted. */
	void (*axes)(struct audit_axes *ax, const cJSON *learned);
	/* Write @w's row and column labels; 0 if it lies outside the domain. */
	int (*classify)(const struct window *w, struct strbuf *row,
			struct strbuf *col);
	/*
	 * Optional: why no window can lie in cell (@row, @col) -- what the
	 * system's code makes impossible -- or NULL if one can.  A window
	 * in such a cell is refused (EXIT_CHECK_FAILED, its file:line): the
	 * fold or the declaration is wrong.
	 */
	const char *(*impossible)(const char *row, const char *col);
	/*
	 * Optional, with impossible(): the transitions of impossible cell
	 * (@row, @col) as windows -- what a spec that allowed them would
	 * reach -- an array of {"action", "input", "pre_state",
	 * "post_state"} (caller frees), NULL if none: the corpus's
	 * impossibility windows (impossible.h).
	 */
	cJSON *(*impossible_windows)(const char *row, const char *col);
};

#endif
