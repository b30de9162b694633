// SPDX-License-Identifier: MIT
/*
 * The domain set (domain.h).  For a pre-state, a call is made from a free
 * lock by: the holder's lock, then the spinner's (which blocks), then the
 * call; then whatever the module needs to go on (a blocked lock() needs
 * the holder's release before its actor's next step), then releases by
 * the holder until the lock is free again, for the next call.  A lock()
 * by the holder never returns: it is the scenario's last step.  Calls by
 * a spinner (its lock() taking the lock after the release) are not made
 * on their own: the scenario of the pre-state the lock() began in makes
 * them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/json.h"
#include "../../capture/die.h"
#include "../../folders/spin/spin-domain.h"
#include "domain.h"

/* A scenario being written, and who holds the lock once its steps ran. */
struct gen {
	struct spin_scenario *s;
	size_t alloc;
	int holder, waiter;	/* -1: none */
};

static const enum spin_op op_of[] = {
	[SPIN_CALL_LOCK] = SPIN_LOCK, [SPIN_CALL_TRY] = SPIN_TRY,
	[SPIN_CALL_RELEASE] = SPIN_RELEASE,
};

static void step(struct gen *g, int actor, enum spin_op op)
{
	struct spin_scenario *s = g->s;

	if (s->nsteps == g->alloc) {
		g->alloc = g->alloc * 2 + 16;
		s->steps = xrealloc(s->steps, g->alloc * sizeof(*s->steps));
	}
	s->steps[s->nsteps] = (struct actor_step){
		.actor = actor, .op = op, .line = (long)s->nsteps + 1,
	};
	s->nsteps++;
	if (op == SPIN_RELEASE) {
		/* a waiter spinning takes the lock at once */
		g->holder = g->waiter;
		g->waiter = -1;
	} else if (g->holder < 0) {
		g->holder = actor;
	} else if (op == SPIN_LOCK && g->holder != actor) {
		g->waiter = actor;
	}
}

/* The only actor in @mask, or -1. */
static int one_of(unsigned int mask)
{
	for (int t = 0; t < SPIN_THREADS; t++)
		if (mask == 1u << t)
			return t;
	return -1;
}

/* Make call @c in pre-state @p, from a free lock; leave the lock free. */
static void make_call(struct gen *g, struct spin_pre p, struct spin_col c)
{
	int spinner = one_of(p.spinning);

	if (p.holder >= 0)
		step(g, p.holder, SPIN_LOCK);
	if (spinner >= 0)
		step(g, spinner, SPIN_LOCK);
	step(g, c.thread, op_of[c.call]);
	/* a waiter left spinning gets the lock at the first of these */
	while (g->holder >= 0)
		step(g, g->holder, SPIN_RELEASE);
}

/* A call of the scenarios: reachable, and not a spinner's own lock(). */
static int made(struct spin_pre p, struct spin_col c)
{
	return !spin_cell_impossible(p, c) && !((p.spinning >> c.thread) & 1);
}

static int never_returns(struct spin_pre p, struct spin_col c)
{
	return c.call == SPIN_CALL_LOCK && c.thread == p.holder;
}

/* "held by 0, spinning {1}" -> "held-by-0-spinning-1" */
static char *name_of(struct spin_pre p)
{
	struct strbuf sb = STRBUF_INIT;
	char *name, *o;

	spin_pre_label(&sb, p, 1);
	name = xstrdup(sb.buf);
	o = name;
	for (const char *i = sb.buf; *i; i++) {
		if (isalnum((unsigned char)*i))
			*o++ = *i;
		else if (o > name && o[-1] != '-')
			*o++ = '-';
	}
	while (o > name && o[-1] == '-')
		o--;
	*o = '\0';
	strbuf_release(&sb);
	return name;
}

/* The scenario of pre-state @p (index @index); 0 if no call is made there. */
static int pre_scenario(struct spin_pre p, int index, struct spin_scenario *s)
{
	struct gen g = { .s = s, .holder = -1, .waiter = -1 };
	int last = -1;

	memset(s, 0, sizeof(*s));
	for (int j = 0; j < SPIN_NCOL; j++) {
		struct spin_col c = spin_col_at(j);

		if (!made(p, c))
			continue;
		if (never_returns(p, c))
			last = j;
		else
			make_call(&g, p, c);
	}
	if (last >= 0) {
		step(&g, p.holder, SPIN_LOCK);
		step(&g, p.holder, SPIN_LOCK);
	}
	if (!s->nsteps)
		return 0;
	s->index = index;
	s->generated = 1;
	s->name = name_of(p);
	s->path = xasprintf(SPIN_DOMAIN_SET "/%02d-%s", index, s->name);
	return 1;
}

size_t spin_domain_scenarios(struct spin_scenario **out)
{
	size_t n = 0;

	*out = xcalloc(SPIN_NPRE, sizeof(**out));
	for (int i = 0; i < SPIN_NPRE; i++)
		n += pre_scenario(spin_pre_at(i), (int)n + 1, &(*out)[n]);
	return n;
}

void spin_scenario_text(const struct spin_scenario *s, struct strbuf *sb)
{
	for (size_t i = 0; i < s->nsteps; i++)
		strbuf_addf(sb, "%d %s\n", s->steps[i].actor,
			    spin_op_names[s->steps[i].op]);
}
