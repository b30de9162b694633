// SPDX-License-Identifier: MIT
/*
 * Shrinking (shrink.h): steps dropped from a kept scenario while its
 * replay still covers the classes it was kept for.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/proc.h"
#include "served.h"
#include "shrink.h"

/*
 * The shrinking of one kept scenario: chunks of steps are dropped, their
 * size halving down to one step, whenever the rest still replays and
 * covers the classes it was kept for.
 */
struct shrinking {
	struct scenario *s;
	char *skip, *trial;   /* lines dropped; those of the trial running */
	size_t chunk, at;     /* the trial drops lines [at - chunk, at) */
};

static void shrink_start(struct shrinking *k, struct scenario *s)
{
	*k = (struct shrinking){ .s = s, .skip = xcalloc(s->n, 1),
				 .trial = xcalloc(s->n, 1),
				 .chunk = (s->n - s->header + 1) / 2, .at = s->n };
}

/* Write the next trial into @t; 0 when the shrinking is over. */
static int shrink_next(struct shrinking *k, struct explorer *e, struct slot *t)
{
	const struct scenario *s = k->s;
	size_t from;

	if (k->at <= s->header) {
		k->chunk /= 2;
		k->at = s->n;
	}
	if (!k->chunk || s->n == s->header)
		return 0;
	from = k->at > s->header + k->chunk ? k->at - k->chunk : s->header;
	memcpy(k->trial, k->skip, s->n);
	memset(k->trial + from, 1, k->at - from);
	k->at = from;
	scenario_write(s, NULL, k->trial, t->f.scen);
	t->job.argv[0] = e->bin;
	t->job.argv[1] = t->f.scen;
	t->job.argv[2] = t->f.steps;
	t->job.argv[3] = NULL;
	t->job.coverdir = NULL;
	t->job.quiet = 1;
	return 1;
}

/* The trial's run ended with @status: keep the trial if it still covers. */
static void shrink_judge(struct shrinking *k, struct explorer *e,
			 struct slot *t, int status)
{
	struct classes seen;
	int all = 1;

	if (status)
		return;   /* a step the shorter scenario cannot take */
	seen = trace_classes(e->folder, &e->domain, t->f.trace, try_step_map(e, t->f.steps), t->f.scen);
	for (size_t i = 0; i < k->s->adds.n && all; i++)
		all = classes_has(&seen, k->s->adds.v[i]);
	classes_free(&seen);
	if (all)
		memcpy(k->skip, k->trial, k->s->n);
}

static void shrink_finish(struct shrinking *k)
{
	struct scenario *s = k->s;
	size_t keep = 0;

	for (size_t i = 0; i < s->n; i++)
		if (!k->skip[i])
			s->lines[keep++] = s->lines[i];
		else
			free(s->lines[i]);
	s->n = keep;
	free(k->skip);
	free(k->trial);
}

void shrink_all(struct explorer *e, struct slot *slots)
{
	for (size_t first = 0; first < e->nkept; first += BATCH) {
		struct shrinking k[BATCH];
		int n = 0, running;

		while (n < BATCH && first + n < e->nkept) {
			shrink_start(&k[n], &e->kept[first + n]);
			n++;
		}
		do {
			struct job jobs[BATCH];
			int at[BATCH];

			running = 0;
			for (int i = 0; i < n; i++)
				if (shrink_next(&k[i], e, &slots[running])) {
					at[running] = i;
					jobs[running] = slots[running].job;
					running++;
				}
			run_tries(e->served, jobs, running);
			for (int j = 0; j < running; j++)
				shrink_judge(&k[at[j]], e, &slots[j],
					     jobs[j].status);
		} while (running);
		for (int i = 0; i < n; i++)
			shrink_finish(&k[i]);
	}
}

