// SPDX-License-Identifier: MIT
/*
 * capture etcd --explore: a coverage-guided search over scenarios of the
 * harness's language, run on the real raft through the with_tla harness.
 *
 * Each try is one harness run: "-generate" draws a scenario step by step
 * from the cluster's state (scenarios/etcd/explore.go), either fresh or,
 * guided, as a mutation of a kept scenario (its first K steps, then new
 * ones).  Its trace is folded (every check of the etcd folder: a violation
 * names the scenario's line) and its windows classified by the etcd audit
 * domain; the scenario is kept when it adds a class.  All randomness is a
 * splitmix64 stream from --seed and the shard, and the seeds it hands the
 * generator: the same seed and budget give the same scenarios.  Then each
 * kept scenario is shrunk: steps are dropped while its replay still covers
 * the classes it added.  Go's own statement coverage of raft is the second
 * signal: guided tries run a harness built with -cover, and a try that
 * runs a raft unit a number of times no try did (AFL's hit-count
 * buckets), but adds no class, is kept as a parent for mutations only
 * (gocover.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../../capture/fold.h"
#include "../../../capture/audit.h"
#include "../../../capture/die.h"
#include "../../../capture/json.h"
#include "../../../capture/proc.h"
#include "../../../capture/scenario.h"
#include "../../../folders/etcd-audit.h"
#include "../../../folders/etcd/etcd.h"
#include "explore.h"
#include "gocover.h"

#define RUN_TIMEOUT 60.0

struct classes {
	char **v;
	size_t n;
};

static int classes_has(const struct classes *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], key))
			return 1;
	return 0;
}

static void classes_add(struct classes *c, const char *key)
{
	if (classes_has(c, key))
		return;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n++] = xstrdup(key);
}

static void classes_free(struct classes *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	*c = (struct classes){ 0 };
}

/* What a fold's windows are collected into. */
struct observed {
	struct classes seen;
	const struct classes *domain;   /* the classes that count */
	const char *scenario;
};

static void observe_window(void *ctx, const struct window *w)
{
	struct observed *o = ctx;
	struct strbuf row = { 0 }, col = { 0 };
	const char *why;

	if (etcd_audit.classify(w, &row, &col)) {
		why = etcd_audit.impossible(row.buf, col.buf);
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
 * message named.
 */
static void keep_failed(void *scenario)
{
	const char *tmp = getenv("TMPDIR");
	char *kept = xasprintf("%s/capture-explore-failed-XXXXXX",
			       tmp ? tmp : "/tmp");
	int fd = mkstemp(kept);

	if (fd >= 0 && !copy_file(scenario, kept))
		fprintf(stderr, "capture: explore: %s is kept as %s\n",
			(char *)scenario, kept);
	if (fd >= 0)
		close(fd);
	free(kept);
}

/* The classes of a trace the harness wrote for @scenario. */
static struct classes trace_classes(const struct classes *domain,
				    const char *trace, const char *steps,
				    const char *scenario)
{
	struct observed o = { .domain = domain, .scenario = scenario };
	int saved = on_failure(keep_failed, (void *)scenario);

	fold_observed(&folder_etcd, trace, steps, observe_window, &o);
	cancel_on_failure(saved);
	return o.seen;
}

/* The work files of one harness run. */
struct try_files {
	char *scen, *trace, *steps;
};

static struct try_files try_files(const char *work, const char *name)
{
	return (struct try_files){
		.scen = xasprintf("%s/%s", work, name),
		.trace = xasprintf("%s/%s.trace", work, name),
		.steps = xasprintf("%s/%s.steps", work, name),
	};
}

static void try_files_free(struct try_files *t)
{
	free(t->scen);
	free(t->trace);
	free(t->steps);
}

/*
 * One harness run of a batch.  The with_tla harness sleeps a millisecond
 * per message it receives (upstream's traceReceiveMessage), so a try is
 * mostly waiting: BATCH of them run at once.  The batch size is fixed, not
 * the machine's: the tries and what is kept do not depend on it.
 */
#define BATCH 4

struct job {
	const char *argv[9];
	struct try_files *files;
	const char *coverdir;  /* GOCOVERDIR of a covered harness, or NULL */
	int quiet;         /* a shrunk replay: a refusal is expected */
	int status;        /* 0, or 3: the harness refused a step */
	struct proc p;
};

static void job_done(struct job *j, struct proc_result r)
{
	if (r.exited && (r.status == 0 || r.status == EXIT_BAD_INPUT)) {
		j->status = r.status;
		return;
	}
	die(EXIT_CAPTURE_FAILED, "%s %s: %s %d", j->argv[0], j->argv[1],
	    r.exited ? "exit status" : r.timed_out ? "timed out after" : "signal",
	    r.timed_out ? (int)RUN_TIMEOUT : r.status);
}

/* Run @n jobs at once and wait for all of them. */
static void run_batch(struct job *jobs, int n)
{
	double deadline = monotonic_seconds() + RUN_TIMEOUT;
	int left = n;

	for (int i = 0; i < n; i++) {
		/* the child inherits it: set only around its start */
		if (jobs[i].coverdir)
			setenv("GOCOVERDIR", jobs[i].coverdir, 1);
		proc_start(&jobs[i].p, jobs[i].argv, jobs[i].files->trace,
			   jobs[i].quiet ? "/dev/null" : NULL);
		if (jobs[i].coverdir)
			unsetenv("GOCOVERDIR");
		jobs[i].status = -1;
	}
	while (left) {
		struct proc_result r;

		for (int i = 0; i < n; i++)
			if (jobs[i].status < 0 && proc_poll(&jobs[i].p, &r, 0)) {
				job_done(&jobs[i], r);
				left--;
			}
		if (left && monotonic_seconds() > deadline) {
			for (int i = 0; i < n; i++)
				if (jobs[i].status < 0)
					proc_stop(&jobs[i].p);
			die(EXIT_CAPTURE_FAILED, "the etcd harness timed out "
			    "after %d s", (int)RUN_TIMEOUT);
		}
		if (left)
			usleep(2000);
	}
}

/* splitmix64: the explorer's one source of randomness. */
static unsigned long long next_random(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A scenario file as lines; its steps are the lines after the header. */
struct scenario {
	char **lines;
	size_t n, header;
	struct classes adds;   /* the classes it was kept for */
	struct classes seen;   /* every class its run showed */
	unsigned picked;       /* how many tries mutated it */
	int parent;            /* kept for raft's coverage only: no output */
};

static struct scenario scenario_read(const char *path)
{
	struct scenario s = { 0 };
	char *text = read_file(path, NULL), *save = NULL;

	if (!text)
		die(EXIT_CAPTURE_FAILED, "%s: cannot read", path);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (*l == '#')
			continue;
		s.lines = xrealloc(s.lines, (s.n + 1) * sizeof(*s.lines));
		s.lines[s.n++] = xstrdup(l);
		if (!strncmp(l, "config ", 7))
			s.header = s.n;
	}
	free(text);
	return s;
}

static void scenario_free(struct scenario *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i]);
	free(s->lines);
	classes_free(&s->adds);
	classes_free(&s->seen);
}

/* Write @s without the lines @skip marks (NULL: all of them). */
static void scenario_write(const struct scenario *s, const char *comment,
			   const char *skip, const char *path)
{
	struct strbuf sb = { 0 };

	if (comment)
		strbuf_addstr(&sb, comment);
	for (size_t i = 0; i < s->n; i++)
		if (!skip || !skip[i])
			strbuf_addf(&sb, "%s\n", s->lines[i]);
	write_file(path, sb.buf, sb.len);
	strbuf_release(&sb);
}

struct explorer {
	const struct explore_opts *x;
	const char *bin, *work;
	unsigned long long rng;
	struct classes covered;
	struct scenario *kept;     /* the parents among them too */
	size_t nkept, nparents;
	long tried;
	struct classes domain;   /* the audit's cells not declared impossible */
	double start;
	const char *cover_bin;   /* guided: the harness built with -cover */
	struct gocover_pkg raft; /* its raft package, once a try wrote it */
	unsigned char *units;    /* per raft unit, the buckets of its hit counts */
	size_t nunits, npairs;   /* units some try ran; (unit, bucket) pairs */
};

/* The audit's cells as "ROW / COL", but those declared impossible. */
static struct classes reachable_domain(void)
{
	struct audit_axes ax = { 0 };
	struct classes d = { 0 };

	etcd_audit.axes(&ax, NULL);
	for (size_t r = 0; r < ax.nrows; r++)
		for (size_t c = 0; c < ax.ncols; c++)
			if (!etcd_audit.impossible(ax.rows[r], ax.cols[c])) {
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

static void report(const struct explorer *e, const char *what)
{
	double t = monotonic_seconds() - e->start;

	progress("explore: %s: tried %ld, kept %zu, classes %zu/%zu, %.1f s, "
		 "%.1f tries/s", what, e->tried, e->nkept - e->nparents,
		 e->covered.n, e->domain.n, t, t > 0 ? e->tried / t : 0.0);
}

/*
 * Keep scenario @scen if the classes it showed, @seen, add one (returns
 * 1), or as a parent if its run showed @fresh (raft unit, hit-count
 * bucket) pairs no try did.
 */
static int keep_if_new(struct explorer *e, const char *scen,
		       const struct classes *seen, size_t fresh)
{
	struct scenario s;
	int adds = 0;

	for (size_t i = 0; i < seen->n; i++)
		adds |= !classes_has(&e->covered, seen->v[i]);
	if (!adds && !fresh)
		return 0;
	s = scenario_read(scen);
	s.parent = !adds;
	e->nparents += s.parent;
	for (size_t i = 0; i < seen->n; i++) {
		classes_add(&s.seen, seen->v[i]);
		if (!classes_has(&e->covered, seen->v[i])) {
			classes_add(&e->covered, seen->v[i]);
			classes_add(&s.adds, seen->v[i]);
		}
	}
	e->kept = xrealloc(e->kept, (e->nkept + 1) * sizeof(*e->kept));
	e->kept[e->nkept++] = s;
	return adds;
}

/* Go's names: covcounters.HASH.PID.TIME, covmeta.HASH. */
static int is_counters(const char *name)
{
	return !strncmp(name, "covcounters.", 12);
}

static int is_meta(const char *name)
{
	return !strncmp(name, "covmeta.", 8);
}

/* The one file of the @kind in the GOCOVERDIR @dir of a try. */
static char *cover_file(const char *dir, int (*kind)(const char *))
{
	size_t n;
	char **names = list_dir(dir, kind, &n), *path;

	if (!names || n != 1)
		die(EXIT_CAPTURE_FAILED, "%s: %zu Go coverage %s files after a "
		    "try, not one", dir, names ? n : 0,
		    kind == is_meta ? "meta-data" : "counter");
	path = xasprintf("%s/%s", dir, names[0]);
	free_names(names, n);
	return path;
}

/* AFL's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128 and more. */
static unsigned bucket(uint32_t n)
{
	static const uint32_t floor[] = { 2, 3, 4, 8, 16, 32, 128 };
	unsigned b = 0;

	while (b < 7 && n >= floor[b])
		b++;
	return b;
}

/*
 * The (raft unit, hit-count bucket) pairs the try run under GOCOVERDIR
 * @dir ran that no try ran before: how many, added to those.  Its counter
 * file is removed (the next try writes its own); the meta-data file
 * stays, read once.
 */
static size_t try_units(struct explorer *e, const char *dir)
{
	struct cap_err err;
	char *counters = cover_file(dir, is_counters);
	uint32_t *counts;
	size_t fresh = 0;

	if (!e->units) {
		char *meta = cover_file(dir, is_meta);

		if (gocover_meta(meta, ETCD_RAFT_PACKAGE, &e->raft, &err))
			die_err(&err);
		e->units = xcalloc(e->raft.units + 1, 1);
		free(meta);
	}
	counts = xcalloc(e->raft.units + 1, sizeof(*counts));
	if (gocover_counters(&e->raft, counters, counts, &err))
		die_err(&err);
	unlink(counters);
	for (size_t u = 0; u < e->raft.units; u++) {
		unsigned char bit;

		if (!counts[u])
			continue;
		bit = 1u << bucket(counts[u]);
		e->nunits += !e->units[u];
		fresh += !(e->units[u] & bit);
		e->units[u] |= bit;
	}
	e->npairs += fresh;
	free(counts);
	free(counters);
	return fresh;
}

/* The parents leave: the output is the scenarios that add a class. */
static void drop_parents(struct explorer *e)
{
	size_t n = 0;

	for (size_t i = 0; i < e->nkept; i++)
		if (e->kept[i].parent)
			scenario_free(&e->kept[i]);
		else
			e->kept[n++] = e->kept[i];
	e->nkept = n;
	e->nparents = 0;
}

/* A batch slot: its files and the arguments of its harness run. */
struct slot {
	struct try_files f;
	char *parent;
	char *cover;   /* its GOCOVERDIR */
	char seed[24], steps[24], prefix[24];
	struct job job;
};

static void slots_init(struct slot *slots, const char *work)
{
	for (int i = 0; i < BATCH; i++) {
		char *name = xasprintf("candidate-%d", i + 1);

		slots[i] = (struct slot){ .f = try_files(work, name),
					  .parent = xasprintf("%s/parent-%d",
							      work, i + 1),
					  .cover = xasprintf("%s/cover-%d",
							     work, i + 1) };
		slots[i].job.files = &slots[i].f;
		mkdir_p(slots[i].cover);
		free(name);
	}
}

static void slots_free(struct slot *slots)
{
	for (int i = 0; i < BATCH; i++) {
		try_files_free(&slots[i].f);
		free(slots[i].parent);
		free(slots[i].cover);
	}
}

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

static int stale_target(const struct explorer *e, const char *class)
{
	return !classes_has(&e->covered, class) && strstr(class, ", new term");
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

/*
 * A guided try's prefix, drawn from @r and @s: a kept scenario's first
 * steps (half the time all of them), the same steps under another kept
 * one's header (raft's configuration decides which classes a state leads
 * to; a fresh try draws it anew), a splice of two kept scenarios, or,
 * one time in three, a kept scenario's first steps then a stale node move.
 */
#define PREFIX_MAX 40   /* the parent's steps a mutation takes at most */

static size_t mutate(struct explorer *e, struct slot *t, unsigned long long r,
		     unsigned long long s)
{
	const struct scenario *a = &e->kept[parent_of(e, r >> 8)];
	const struct scenario *b = &e->kept[(r >> 40) % e->nkept];
	/* parents of parents would grow without end, and tries slow down */
	size_t steps = a->n - a->header < PREFIX_MAX ? a->n - a->header : PREFIX_MAX;
	size_t k = (r >> 20) & 1 ? steps : (r >> 24) % (steps + 1);
	const char *want = uncovered(e, s >> 8);

	if (want && s % 2 == 0) {
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

/* Set up a try: a fresh scenario, or (guided) a mutation of kept ones. */
static void prepare_try(struct explorer *e, struct slot *t)
{
	const char *argv[9] = { e->bin, "-generate", t->seed, t->steps,
				t->f.scen, t->f.steps };
	unsigned long long r = next_random(&e->rng);

	snprintf(t->seed, sizeof(t->seed), "%llu", next_random(&e->rng));
	if (!e->x->unguided && e->nkept && r % 4) {
		unsigned long long m = next_random(&e->rng);
		unsigned long long stale = next_random(&e->rng);

		snprintf(t->prefix, sizeof(t->prefix), "%zu",
			 mutate(e, t, m, stale));
		snprintf(t->steps, sizeof(t->steps), "%llu", 1 + (r >> 40) % 20);
		argv[6] = t->parent;
		argv[7] = t->prefix;
	} else {
		snprintf(t->steps, sizeof(t->steps), "%llu", 5 + (r >> 8) % 40);
	}
	if (e->cover_bin)
		argv[0] = e->cover_bin;
	memcpy(t->job.argv, argv, sizeof(argv));
	t->job.coverdir = e->cover_bin ? t->cover : NULL;
	t->job.quiet = 0;
}

static int budget_left(const struct explorer *e)
{
	if (e->x->budget)
		return e->tried < e->x->budget;
	return monotonic_seconds() - e->start < e->x->seconds;
}

/* One batch of tries, drawn from what was kept before it, judged in order. */
static void explore_batch(struct explorer *e, struct slot *slots)
{
	struct job jobs[BATCH];
	int n = 0;

	while (n < BATCH && (!e->x->budget || e->tried + n < e->x->budget))
		prepare_try(e, &slots[n++]);
	for (int i = 0; i < n; i++)
		jobs[i] = slots[i].job;
	run_batch(jobs, n);
	for (int i = 0; i < n; i++) {
		struct classes seen;
		size_t fresh;

		if (jobs[i].status)
			die(EXIT_CAPTURE_FAILED, "the generator refused its own "
			    "step (its message is above)");
		e->tried++;
		seen = trace_classes(&e->domain, slots[i].f.trace,
				     slots[i].f.steps, slots[i].f.scen);
		fresh = jobs[i].coverdir ? try_units(e, jobs[i].coverdir) : 0;
		if (keep_if_new(e, slots[i].f.scen, &seen, fresh))
			report(e, "kept");
		classes_free(&seen);
	}
}

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
	seen = trace_classes(&e->domain, t->f.trace, t->f.steps, t->f.scen);
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

/*
 * Shrink the kept scenarios, BATCH at a time, each one's trials in turn:
 * a scenario's shrinking depends only on its own trials.
 */
static void shrink_all(struct explorer *e, struct slot *slots)
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
			run_batch(jobs, running);
			for (int j = 0; j < running; j++)
				shrink_judge(&k[at[j]], e, &slots[j],
					     jobs[j].status);
		} while (running);
		for (int i = 0; i < n; i++)
			shrink_finish(&k[i]);
	}
}

/* Write the kept scenarios into @dir as NNN-explored, with what each adds. */
static void write_kept(struct scenario *kept, size_t n, const char *origin,
		       const char *dir)
{
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%03zu-explored", dir, i + 1);
		struct strbuf c = { 0 };

		strbuf_addf(&c, "# %s; adds:\n", origin);
		for (size_t k = 0; k < kept[i].adds.n; k++)
			strbuf_addf(&c, "#   %s\n", kept[i].adds.v[k]);
		scenario_write(&kept[i], c.buf, NULL, path);
		strbuf_release(&c);
		free(path);
	}
}

/* The tries' files: removed at the end, and if the run fails. */
static char *work_dir(int *cleanup)
{
	char *work = owned_tmp_in(temp_dir(), "capture-explore");

	if (!mkdtemp(work))
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", work);
	*cleanup = remove_on_failure(work);
	return work;
}

void explore_parse_shard(struct explore_opts *x, const char *arg)
{
	char *end;

	x->shard = (int)strtol(arg, &end, 10);
	if (*end == '/')
		x->shards = (int)strtol(end + 1, &end, 10);
	if (*end || x->shard < 1 || x->shards < x->shard)
		die(EXIT_USAGE, "--shard %s: expected K/N with 1 <= K <= N", arg);
}

static void explorer_free(struct explorer *e, char *work, int cleanup)
{
	for (size_t i = 0; i < e->nkept; i++)
		scenario_free(&e->kept[i]);
	free(e->kept);
	classes_free(&e->covered);
	classes_free(&e->domain);
	gocover_pkg_free(&e->raft);
	free(e->units);
	remove_tree(work);
	cancel_on_failure(cleanup);
	free(work);
}

void etcd_explore(const struct explore_opts *x, const char *bin,
		  const char *cover_bin, const char *dir)
{
	int cleanup;
	char *work = work_dir(&cleanup), *origin;
	struct explorer e = { .x = x, .bin = bin, .cover_bin = cover_bin, .work = work,
			      .domain = reachable_domain(),
			      .start = monotonic_seconds() };
	struct slot slots[BATCH];

	slots_init(slots, work);
	/* shards draw disjoint streams from the same seed */
	e.rng = x->seed ^ (0x5bd1e995ULL * (unsigned long long)x->shard);
	while (budget_left(&e))
		explore_batch(&e, slots);
	report(&e, "explored");
	if (e.cover_bin)
		progress("explore: raft units run %zu/%zu, (unit, hit count) "
			 "pairs %zu; %zu parents kept for them", e.nunits,
			 e.raft.units, e.npairs, e.nparents);
	drop_parents(&e);
	shrink_all(&e, slots);
	report(&e, "shrunk");
	origin = xasprintf("capture etcd --explore: seed %llu, shard %d/%d%s",
			   x->seed, x->shard, x->shards,
			   x->unguided ? ", unguided" : "");
	write_kept(e.kept, e.nkept, origin, dir);
	free(origin);
	slots_free(slots);
	explorer_free(&e, work, cleanup);
}

/* Keep scenario file @path if it adds a class (a shard's, being merged). */
static void merge_one(struct explorer *e, struct slot *t, const char *path)
{
	struct classes seen;

	t->job.argv[0] = e->bin;
	t->job.argv[1] = path;
	t->job.argv[2] = t->f.steps;
	t->job.argv[3] = NULL;
	t->job.coverdir = NULL;
	t->job.quiet = 0;
	run_batch(&t->job, 1);
	if (t->job.status)
		die(EXIT_BAD_INPUT, "%s: bad scenario (the harness refused it)",
		    path);
	e->tried++;
	seen = trace_classes(&e->domain, t->f.trace, t->f.steps, path);
	keep_if_new(e, path, &seen, 0);
	classes_free(&seen);
}

void etcd_merge(char *const *corpora, int n, const char *bin, const char *dir)
{
	int cleanup;
	char *work = work_dir(&cleanup);
	struct explorer e = { .bin = bin, .work = work,
			      .domain = reachable_domain(),
			      .start = monotonic_seconds() };
	struct slot slots[BATCH];

	slots_init(slots, work);
	for (int i = 0; i < n; i++) {
		char *sdir = xasprintf("%s/scenarios", corpora[i]);
		size_t k;
		char **names = list_dir(sdir, is_scenario_file, &k);

		if (!names)
			die(EXIT_USAGE, "%s: no scenarios directory (not an "
			    "explored corpus)", sdir);
		for (size_t j = 0; j < k; j++) {
			char *path = xasprintf("%s/%s", sdir, names[j]);

			merge_one(&e, &slots[0], path);
			free(path);
		}
		free_names(names, k);
		free(sdir);
	}
	report(&e, "merged");
	write_kept(e.kept, e.nkept, "capture etcd --merge", dir);
	slots_free(slots);
	explorer_free(&e, work, cleanup);
}
