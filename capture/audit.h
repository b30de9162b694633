/* SPDX-License-Identifier: MIT */
/*
 * Coverage audit of window files.
 *
 * Each system that can say what its observable domain is supplies an
 * audit_domain (folders/SYSTEM/SYSTEM-audit.c): the domain is a matrix of
 * pre-state classes (rows) by action classes (columns: the action and its
 * data, plus its outcome where data alone is unbounded), and classify()
 * puts a window in its cell.  The audit counts windows per cell and per
 * action, the identity base rate (post == pre), schedule diversity across
 * runs, and the cells only one run covers; several inputs merge into one
 * report.
 *
 * A cell has one of four statuses: covered (some window is in it),
 * reachable but not covered, impossible (the domain declares, with a
 * reason, that the system cannot produce a window there: coverage is
 * covered / (total - impossible)), and observed never completing (a call
 * was seen that never returned, e.g. a self-deadlocking lock(): a window
 * without a post-state, below).
 */
#ifndef CAPTURE_AUDIT_H
#define CAPTURE_AUDIT_H

#include <stdio.h>
#include <cJSON.h>
#include "audit-domain.h"
#include "json.h"
#include "windows.h"

struct corpus;
struct folder;

/*
 * The audit's one pass, fed window by window and run after run: memory
 * does not grow with the windows.  audit_report() feeds it from window
 * files (audit-report.h); a fold feeds it each window as it writes it (corpus_audit()), so
 * that nothing is read back.
 */
struct audit_pass;
struct audit_pass *audit_pass_begin(const struct folder *system);
/* The windows fed from now on are those of run @label. */
void audit_pass_run(struct audit_pass *p, const char *label);
/*
 * Count one window of the current run (@p is the audit_pass).  A window
 * whose post is NULL is a call observed that never returned (its pre the
 * state it was called in): it is counted in its cell as never completing,
 * not as a window, and may lie in an impossible cell.
 */
void audit_pass_window(void *p, const struct window *w);
/* The report (caller frees); frees @p. */
cJSON *audit_pass_report(struct audit_pass *p);

/* The report as the text table. */
void audit_print_text(FILE *f, const cJSON *report);
/* The report's coverage matrix as SVG (deterministic). */
void audit_write_svg(struct strbuf *sb, const cJSON *report);

/* Helpers for reports (audit, grade). */
/* The count at @key of @o, 0 if absent. */
long long report_n(const cJSON *o, const char *key);
/* "k/n = 12.3%" into @buf; returns @buf. */
const char *report_rate(char buf[64], long long k, long long n);
/* The members of object @obj as an array, in order; frees @obj. */
cJSON *report_values(cJSON *obj);

/*
 * Write audit.json into corpus @c from the audit its windows fed as they
 * were written (corpus_audit()): call right before corpus_commit() so the
 * manifest covers it.
 */
void audit_corpus(struct corpus *c);

#endif
