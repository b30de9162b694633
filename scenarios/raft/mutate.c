// SPDX-License-Identifier: MIT
/*
 * The guided tries' mutations (mutate.h): a kept scenario drawn by energy,
 * its prefix, a splice, or a move toward a class of a later term.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/proc.h"
#include "mutate.h"
#include "scenario-lines.h"

/*
 * How close class @have ("ROLE / ACTION OUTCOME") is to @want: 2 for the
 * same role and action, 1 for the same role.
 */
static unsigned nearness(const char *have, const char *want)
{
	size_t role = strcspn(want, "/"), act = role + 2 + strcspn(want + role + 2, " ");

	if (strncmp(have, want, role))
		return 0;
	return strncmp(have, want, act) || (have[act] && have[act] != ' ') ? 1 : 2;
}

/*
 * A kept scenario's energy: how near the classes its run showed come to
 * those not covered yet (a candidate's append of a new term wants a run
 * that had candidates handling appends), falling as it is mutated (AFL's
 * power schedules: the least tried gets the tries).
 */
static unsigned long long energy(const struct explorer *e,
				 const struct scenario *s)
{
	unsigned long long near = 1;

	for (size_t u = 0; u < e->domain.n; u++) {
		unsigned best = 0;

		if (classes_has(&e->covered, e->domain.v[u]))
			continue;
		for (size_t i = 0; i < s->seen.n && best < 2; i++) {
			unsigned n = nearness(s->seen.v[i], e->domain.v[u]);

			best = n > best ? n : best;
		}
		near += best;
	}
	return (near << 16) / (1 + s->picked);
}

/*
 * The kept scenario a guided try mutates: half the time one of the 8
 * newest (they reached the deepest states), else one drawn by energy.
 */
static size_t parent_of(struct explorer *e, unsigned long long r)
{
	unsigned long long total = 0, w;
	size_t i;

	if (r & 1) {
		size_t recent = e->nkept < 8 ? e->nkept : 8;

		return e->nkept - 1 - (r >> 1) % recent;
	}
	for (i = 0; i < e->nkept; i++)
		total += energy(e, &e->kept[i]);
	r = (r >> 1) % total;
	for (i = 0; i + 1 < e->nkept; i++) {
		w = energy(e, &e->kept[i]);
		if (r < w)
			break;
		r -= w;
	}
	e->kept[i].picked++;
	return i;
}

/*
 * The prefix file of a mutation: @hdr's header, then @a's first @k steps,
 * then @b's steps from its @j-th on (@b NULL: none).  The generator drops
 * the steps the state no longer allows, so any composition replays.
 */
static size_t compose(const struct scenario *hdr, const struct scenario *a,
		      size_t k, const struct scenario *b, size_t j,
		      const char *path)
{
	struct scenario c = { 0 };
	size_t n = 0;

	c.lines = xcalloc(hdr->header + k + (b ? b->n : 0), sizeof(*c.lines));
	for (size_t i = 0; i < hdr->header; i++)
		c.lines[n++] = hdr->lines[i];
	for (size_t i = 0; i < k; i++)
		c.lines[n++] = a->lines[a->header + i];
	for (size_t i = b ? b->header + j : 0; b && i < b->n; i++)
		c.lines[n++] = b->lines[i];
	c.n = n;
	scenario_write(&c, NULL, NULL, path);
	free(c.lines);
	return n - hdr->header;
}

static void add_step(struct scenario *s, char *line)
{
	s->lines = xrealloc(s->lines, (s->n + 1) * sizeof(*s->lines));
	s->lines[s->n++] = line;
}

/*
 * The steps after the heal that send node @x's side's messages of the
 * kind @action names (a leader's tick sends heartbeats, a proposal
 * appends, a campaign asks for votes; a snapshot needs the log X lacks
 * compacted first), @y and @z being the other two nodes.
 */
static void stale_trigger(struct scenario *m, const char *action, unsigned x,
			  unsigned y, unsigned z)
{
	if (!strncmp(action, "HandleVoteRequest", 17)) {
		add_step(m, xasprintf("campaign %u", y));
		return;
	}
	if (!strncmp(action, "HandleSnapshot", 14)) {
		const unsigned side[] = { y, z };

		for (int i = 0; i < 2; i++) {
			add_step(m, xasprintf("propose %u snap%u", side[i], x));
			add_step(m, xstrdup("pump"));
			add_step(m, xasprintf("compact %u 1", side[i]));
		}
	}
	if (!strncmp(action, "HandleAppendEntries", 19))
		add_step(m, xasprintf("propose %u stale%u", y, x));
	add_step(m, xasprintf("tick %u", y));
	add_step(m, xasprintf("tick %u", z));
	add_step(m, xasprintf("deliver-one %u<-%u", x, y));
	add_step(m, xasprintf("deliver-one %u<-%u", x, z));
}

/*
 * Node @y asks for votes in a later term, @z answering first: with
 * PreVote, its pre-vote round goes through @z (a campaign makes it a
 * pre-candidate); without, @z's vote would make it a leader, whose first
 * entry, of its later term, would put its log ahead.
 */
static void vote_round(struct scenario *m, int prevote, unsigned y, unsigned z)
{
	add_step(m, xasprintf("campaign %u", y));
	if (prevote) {
		add_step(m, xasprintf("deliver %u<-%u", z, y));
		add_step(m, xasprintf("deliver %u<-%u", y, z));
	}
}

/*
 * A stale log move toward "ROLE / HandleVoteRequest rejected, new term":
 * a rejection needs X's log ahead of the later term's candidate, so X, the
 * old leader, proposes while it is cut off and the two others do not elect
 * anew (a leader would be ahead again).  After the heal Y asks for votes
 * (X, rejecting, follows the later term: the leader's class), X campaigns
 * for a (pre-)candidate class, and Y asks again, in a term later still
 * (twice without PreVote: X's campaign reached Y's term).
 */
static struct scenario stale_log_move(const char *want, int prevote,
				      unsigned x, unsigned y, unsigned z)
{
	struct scenario m = { 0 };

	add_step(&m, xasprintf("elect %u %u %u", x, y, z));
	add_step(&m, xasprintf("partition %u | %u %u", x, y, z));
	add_step(&m, xasprintf("propose %u stale%u", x, x));
	add_step(&m, xstrdup("heal"));
	vote_round(&m, prevote, y, z);
	add_step(&m, xasprintf("deliver %u<-%u", x, y));
	if (strstr(want, "candidate /"))
		add_step(&m, xasprintf("campaign %u", x));
	vote_round(&m, prevote, y, z);
	if (!prevote)
		add_step(&m, xasprintf("campaign %u", y));
	add_step(&m, xasprintf("deliver-one %u<-%u", x, y));
	add_step(&m, xasprintf("deliver-one %u<-%u", x, y));
	return m;
}

/*
 * A missed election move toward "ROLE / HandleAppendEntries ..., new
 * term": an append reaches X before a heartbeat only from a leader elected
 * after the heal (one elected while X was cut off sends X nothing until X
 * answers a heartbeat), so Z campaigns after it, X's vote requests are
 * discarded and X gets Z's first append.  As @r draws, Y and Z elect while
 * X is cut off (X's log falls behind: a rejection) and Z campaigns twice
 * (always above a candidate's own term); an old leader proposes while cut
 * off (its uncommitted entry conflicts with the later terms').
 */
static struct scenario missed_election_move(const char *want, int prevote,
					    unsigned long long r, unsigned x,
					    unsigned y, unsigned z)
{
	struct scenario m = { 0 };
	int leader = !strncmp(want, "leader", 6);

	if (leader)
		add_step(&m, xasprintf("elect %u %u %u", x, y, z));
	add_step(&m, xasprintf("partition %u | %u %u", x, y, z));
	if (leader)
		add_step(&m, xasprintf("propose %u stale%u", x, x));
	if (strstr(want, "candidate /"))
		add_step(&m, xasprintf("campaign %u", x));
	if ((r >> 4) & 1)
		add_step(&m, xasprintf("elect %u %u %u", y, z, x));
	add_step(&m, xstrdup("heal"));
	add_step(&m, xasprintf("campaign %u", z));
	if (!strncmp(want, "candidate", 9) || (r >> 5) & 1)
		add_step(&m, xasprintf("campaign %u", z));
	if (prevote) {
		add_step(&m, xasprintf("deliver %u<-%u", y, z));
		add_step(&m, xasprintf("deliver %u<-%u", z, y));
	}
	add_step(&m, xasprintf("deliver %u<-%u", y, z));
	add_step(&m, xasprintf("discard %u", x));
	add_step(&m, xasprintf("deliver %u<-%u", z, y));
	add_step(&m, xasprintf("deliver-one %u<-%u", x, z));
	return m;
}

/*
 * A stale node move toward uncovered class @want ("ROLE / ACTION ..."):
 * node X takes the role (a leader elected before the cut, a
 * (pre-)candidate by campaigning alone), is cut off while the other two
 * elect a leader of a later term (and, as @r draws, campaign again), then
 * the partition heals and they send X the message of the action; the
 * generator's next steps deliver it.  The classes random steps rarely
 * reach are of this kind: a (pre-)candidate or an old leader meeting a
 * later term.  A vote X rejects needs the stale log move instead, and an
 * append of a later term, half the time, the missed election move
 * (@prevote: the header's).  Steps the state does not allow are dropped
 * by the generator like any prefix step.
 */
static struct scenario stale_move(const char *want, int prevote,
				  unsigned long long r)
{
	struct scenario m = { 0 };
	unsigned x = r % 3 + 1, y = x % 3 + 1, z = y % 3 + 1;
	const char *action = strstr(want, " / ") + 3;

	if (strstr(want, "HandleVoteRequest rejected"))
		return stale_log_move(want, prevote, x, y, z);
	if (!strncmp(action, "HandleAppendEntries", 19) && (r >> 3) & 1)
		return missed_election_move(want, prevote, r, x, y, z);
	if (!strncmp(want, "leader", 6))
		add_step(&m, xasprintf("elect %u %u %u", x, y, z));
	add_step(&m, xasprintf("partition %u | %u %u", x, y, z));
	if (strstr(want, "candidate /"))
		add_step(&m, xasprintf("campaign %u", x));
	add_step(&m, xasprintf("elect %u %u %u", y, z, x));
	if (!strncmp(want, "candidate", 9) || (r >> 2) & 1)
		add_step(&m, xasprintf("elect %u %u %u", z, x, y));
	add_step(&m, xstrdup("heal"));
	stale_trigger(&m, action, x, y, z);
	return m;
}

/*
 * Scripted moves, from a fresh cluster under a header of their own, toward
 * the classes that need messages queued in one exact order (docs/etcd-explore.md,
 * "How it searches"): X, a candidate that installed one copy of a stale
 * MsgSnap, steps down by a rejected pre-vote of a later term alone.
 * Steps name the nodes X, Y, Z; NULL ends a part.
 */
static const char *const snap_lag[] = {   /* Y queues a MsgSnap for X */
	"elect Y Z X", "partition X | Y Z", "propose Y a", "propose Y b",
	"pump", "compact Y 3", "heal", "tick Y", "deliver X<-Y",
	"deliver Y<-X", "deliver X<-Y", "deliver Y<-X", NULL
};
static const char *const snap_copies[] = { /* X installs 1 of 3 copies */
	"duplicate X<-Y", "duplicate X<-Y", "deliver-one X<-Y", "discard Z",
	"campaign X", "deliver Z<-X", "deliver X<-Z", NULL
};
static const char *const snap_candidate[] = { /* Y, at term 3, rejects */
	"campaign Z", "deliver Y<-Z", "deliver Z<-Y", "campaign Z",
	"deliver Y<-Z", "deliver Z<-Y", "deliver Y<-Z", "deliver Y<-X", NULL
};
static const char *const snap_no_copy[] = { /* the rejection alone */
	"drop X<-Y", "drop X<-Y", "deliver-one X<-Y", NULL
};
/*
 * A pre-candidate with no vote grants a vote of its own term
 * (tests/raft/scenarios/30-* with X, Y, Z = 3, 1, 2): X follows
 * Z's term with no vote (a rejected pre-vote taken untraced),
 * pre-campaigns again and grants Z's MsgVote of that term.
 */
static const char *const pre_granted[] = {
	"elect Y Z X", "partition X | Y Z", "propose Y a", "pump", "heal",
	"tick Y", "duplicate X<-Y", "duplicate X<-Y", "deliver-one X<-Y",
	"discard Z", "campaign X", "campaign Z", "deliver Y<-Z",
	"deliver Z<-Y", "deliver Y<-Z", "deliver Y<-X", "deliver-one X<-Y",
	"drop X<-Y", "deliver-one X<-Y", "elect X Y Z", NULL
};
/*
 * Membership (tests/raft/scenarios/25-conf-heartbeat and 26-conf-dropped
 * with X, Y, Z = 1, 2, 3):
 * a leader's conf change past its uncommitted-size limit, traced and
 * dropped; a held leader's stale heartbeat whose window takes in the
 * commit its applied removal makes.
 */
static const char *const conf_dropped[] = {
	"elect X Y Z", "propose X a", "remove-node X Z", NULL
};
static const char *const conf_leads[] = { /* X leads term 2, Y's beat waits */
	"elect Y Z X", "tick Y", "campaign X", "deliver Z<-X", "deliver X<-Z",
	"deliver Z<-X", "deliver X<-Z", "remove-node X Y", "deliver Z<-X",
	"deliver X<-Z", "deliver Z<-X", "deliver X<-Z", "apply X",
	"remove-node X Z", "deliver Z<-X", "deliver X<-Z", "propose X a",
	"discard Z", NULL
};
static const char *const conf_beat[] = {
	"hold X", "deliver-one X<-Y", "apply X", "release X", NULL
};
static const char *const conflict[] = { /* X's suffix, Z leads term 2 */
	"elect X Y Z", "partition X | Y Z", "propose X x", "crash Y",
	"restart Y", "crash Z", "restart Z", "heal", "campaign Y",
	"deliver Z<-Y", "deliver Y<-Z", "deliver Z<-Y", "deliver Y<-Z",
	"tick X", "tick X", "tick X", "tick X", "tick X", "tick X",
	"campaign X", "drop X<-Y", "drop X<-Y", "deliver-one X<-Y", NULL
};

struct script {
	const char *want;
	int checkquorum;
	const char *const *parts[4];
	const char *header;   /* a header line of its own, or NULL */
};

static const struct script scripts[] = {
	{ "candidate / BecomeFollower, new term", 0,
	  { snap_lag, snap_copies, snap_candidate, snap_no_copy }, NULL },
	{ "precandidate / HandleAppendEntries no new entries, new term", 1,
	  { conflict }, NULL },
	{ "precandidate / HandleVoteRequest granted", 0, { pre_granted }, NULL },
	{ "leader / ClientProposal dropped", 0, { conf_dropped },
	  "config max-uncommitted-size 1" },
	{ "leader / HandleHeartbeat commit advanced", 0,
	  { conf_leads, conf_beat }, "config apply-conf step" },
};

/* Whether @want has a scripted move. */
static int scripted(const char *want)
{
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		if (!strcmp(scripts[i].want, want))
			return 1;
	return 0;
}

/* @step with the node names X, Y, Z as @x, @y, @z. */
static char *name_nodes(const char *step, unsigned x, unsigned y, unsigned z)
{
	char *line = xstrdup(step);

	for (char *c = line; *c; c++)
		if (*c >= 'X' && *c <= 'Z')
			*c = (char)('0' + (*c == 'X' ? x : *c == 'Y' ? y : z));
	return line;
}

/*
 * The scripted move toward @want, as the prefix of slot @t (@r draws X);
 * 0 if @want has none.  Its header: PreVote on (a rejected pre-vote is
 * what brings the later term), CheckQuorum as the script needs, election
 * tick 3.
 */
static size_t scripted_move(const char *want, unsigned long long r,
			    struct slot *t)
{
	struct scenario h = { 0 }, m = { 0 };
	unsigned x = r % 3 + 1, y = x % 3 + 1, z = y % 3 + 1;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		const struct script *sc = &scripts[i];

		if (strcmp(sc->want, want))
			continue;
		add_step(&h, xstrdup("config prevote on"));
		add_step(&h, xstrdup(sc->checkquorum ? "config checkquorum on"
						     : "config checkquorum off"));
		add_step(&h, xstrdup("config election-tick 3"));
		if (sc->header)
			add_step(&h, xstrdup(sc->header));
		h.header = h.n;
		for (int p = 0; p < 4 && sc->parts[p]; p++)
			for (const char *const *s = sc->parts[p]; *s; s++)
				add_step(&m, name_nodes(*s, x, y, z));
		n = compose(&h, &h, 0, &m, 0, t->parent);
	}
	scenario_free(&h);
	scenario_free(&m);
	return n;
}

/* A class of a later term, or one a script reaches, not covered yet. */
static int stale_target(const struct explorer *e, const char *class)
{
	return !classes_has(&e->covered, class) &&
	       (strstr(class, ", new term") || scripted(class));
}

/* A class of a later term not covered yet, drawn from @r; NULL if none. */
static const char *uncovered(const struct explorer *e, unsigned long long r)
{
	size_t n = 0, i;

	for (i = 0; i < e->domain.n; i++)
		n += stale_target(e, e->domain.v[i]);
	if (!n)
		return NULL;
	n = r % n;
	for (i = 0; i < e->domain.n; i++)
		if (stale_target(e, e->domain.v[i]) && !n--)
			break;
	return e->domain.v[i];
}

static int has_line(const struct scenario *s, const char *line)
{
	for (size_t i = 0; i < s->header; i++)
		if (!strcmp(s->lines[i], line))
			return 1;
	return 0;
}

/*
 * The header of a stale node move toward @want: a kept scenario's, the
 * first from the @r-th on, with CheckQuorum off (else the two nodes left
 * cannot elect anew: each ignores votes while it heard from a leader
 * within an election timeout, and no tick the harness allows gets them
 * past it) and PreVote on for a pre-candidate, off for a candidate; @a's
 * when none is.
 */
static const struct scenario *stale_header(const struct explorer *e,
					   const struct scenario *a,
					   const char *want, unsigned long long r)
{
	for (size_t i = 0; i < e->nkept; i++) {
		const struct scenario *h = &e->kept[(r + i) % e->nkept];

		if (!has_line(h, "config checkquorum off"))
			continue;
		if (!strncmp(want, "precandidate", 12) &&
		    !has_line(h, "config prevote on"))
			continue;
		if (!strncmp(want, "candidate", 9) &&
		    !has_line(h, "config prevote off"))
			continue;
		return h;
	}
	return a;
}

#define PREFIX_MAX 40   /* the parent's steps a mutation takes at most */

size_t mutate(struct explorer *e, struct slot *t, unsigned long long r,
	      unsigned long long s)
{
	const struct scenario *a = &e->kept[parent_of(e, r >> 8)];
	const struct scenario *b = &e->kept[(r >> 40) % e->nkept];
	/* parents of parents would grow without end, and tries slow down */
	size_t steps = a->n - a->header < PREFIX_MAX ? a->n - a->header : PREFIX_MAX;
	size_t k = (r >> 20) & 1 ? steps : (r >> 24) % (steps + 1);
	const char *want = uncovered(e, s >> 8);

	/* a class of no later term has its script only */
	if (want && s % 2 == 0 && ((s >> 4) % 2 || !strstr(want, ", new term"))) {
		size_t n = scripted_move(want, s >> 32, t);

		if (n)
			return n;
	}
	if (want && s % 2 == 0 && strstr(want, ", new term")) {
		const struct scenario *h = stale_header(e, a, want, s >> 40);
		struct scenario m = stale_move(want,
					       has_line(h, "config prevote on"),
					       s >> 32);
		size_t n = compose(h, a, k, &m, 0, t->parent);

		scenario_free(&m);
		return n;
	}
	switch ((r >> 2) % 4) {
	case 0:
		return compose(b, a, steps, NULL, 0, t->parent);
	case 1:
		return compose(a, a, k, b, (r >> 48) % (b->n - b->header + 1),
			       t->parent);
	}
	return compose(a, a, k, NULL, 0, t->parent);
}

