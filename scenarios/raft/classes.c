// SPDX-License-Identifier: MIT
/* The audit classes of a harness run (classes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../capture/audit.h"
#include "../../capture/die.h"
#include "../../capture/fold.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../../capture/system.h"
#include "classes.h"

int classes_has(const struct classes *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], key))
			return 1;
	return 0;
}

void classes_add(struct classes *c, const char *key)
{
	if (classes_has(c, key))
		return;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n++] = xstrdup(key);
}

void classes_free(struct classes *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	*c = (struct classes){ 0 };
}

/* What a fold's windows are collected into. */
struct observed {
	const struct audit_domain *audit;
	struct classes seen;
	const struct classes *domain;   /* the classes that count */
	const char *scenario;
};

static void observe_window(void *ctx, const struct window *w)
{
	struct observed *o = ctx;
	struct strbuf row = { 0 }, col = { 0 };
	const char *why;

	if (o->audit->classify(w, &row, &col)) {
		why = o->audit->impossible(row.buf, col.buf);
		if (why)
			die_at(EXIT_CHECK_FAILED, o->scenario, 0,
			       "a %s window in the impossible class %s / %s (%s)",
			       w->action, row.buf, col.buf, why);
		strbuf_addf(&row, " / %s", col.buf);
		if (classes_has(o->domain, row.buf))
			classes_add(&o->seen, row.buf);
	}
	strbuf_release(&row);
	strbuf_release(&col);
}

/*
 * A check failed on a try: its scenario is a finding (a bug in raft or in
 * the fold) that outlives the work directory, saved under the lines the
 * message named.  A signal that stopped the fold found nothing: the run
 * leaves nothing and says nothing after the signal's message.
 */
static void keep_failed(void *scenario)
{
	char *kept;
	int fd;

	if (cleanups_by_signal())
		return;
	kept = xasprintf("%s/capture-explore-failed-XXXXXX", temp_dir());
	fd = mkstemp(kept);
	if (fd >= 0 && !copy_file(scenario, kept))
		fprintf(stderr, "capture: explore: %s is kept as %s\n",
			(char *)scenario, kept);
	else if (fd >= 0)
		unlink(kept);
	if (fd >= 0)
		close(fd);
	free(kept);
}

/* The classes of a trace the harness wrote for @scenario. */
struct classes trace_classes(const struct folder *f,
			     const struct classes *domain,
			     const char *trace, const char *steps,
			     const char *scenario)
{
	struct observed o = { .audit = f->audit, .domain = domain,
			      .scenario = scenario };
	int saved = on_failure(keep_failed, (void *)scenario);

	fold_observed(f, trace, steps, observe_window, &o);
	cancel_on_failure(saved);
	return o.seen;
}

struct classes reachable_domain(const struct audit_domain *audit)
{
	struct audit_axes ax = { 0 };
	struct classes d = { 0 };

	audit->axes(&ax, NULL);
	for (size_t r = 0; r < ax.nrows; r++)
		for (size_t c = 0; c < ax.ncols; c++)
			if (!audit->impossible(ax.rows[r], ax.cols[c])) {
				char *key = xasprintf("%s / %s", ax.rows[r],
						      ax.cols[c]);

				classes_add(&d, key);
				free(key);
			}
	for (size_t r = 0; r < ax.nrows; r++)
		free(ax.rows[r]);
	for (size_t c = 0; c < ax.ncols; c++)
		free(ax.cols[c]);
	free(ax.rows);
	free(ax.cols);
	return d;
}

