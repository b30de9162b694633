// SPDX-License-Identifier: MIT
/*
 * A raft's --explore (capture etcd, capture hashicorp, capture raftrs): a
 * coverage-guided search over scenarios of the raft language, run on the
 * real raft through its harness.
 *
 * Each try is one harness run: "-generate" draws a scenario step by step
 * from the cluster's state (scenarios/raft/lang/generate.go, over the
 * harness's options: scenarios/etcd/explore.go), either fresh or,
 * guided, as a mutation of a kept scenario (its first K steps, then new
 * ones).  Its trace is folded (every check of the system's folder: a
 * violation names the scenario's line) and its windows classified by the
 * folder's audit domain; the scenario is kept when it adds a class.  All
 * randomness is a
 * splitmix64 stream from --seed and the shard, and the seeds it hands the
 * generator: the same seed and budget give the same scenarios.  Then each
 * kept scenario is shrunk: steps are dropped while its replay still covers
 * the classes it added.  Go's own statement coverage of raft is the second
 * signal: guided tries run a harness built with -cover, and a try that
 * runs a raft unit a number of times no try did (AFL's hit-count
 * buckets), but adds no class, is kept as a parent for mutations only
 * (gocover.h).  With --via ebpf the tries (and --merge's replays) run
 * on the plain harness, all in one process under raft's probes, and the
 * classes come from what the probes saw (served.h).
 */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../../capture/scenario.h"
#include "../../capture/system.h"
#include "classes.h"
#include "coverage.h"
#include "ebpf.h"
#include "explore.h"
#include "explorer.h"
#include "mutate.h"
#include "scenario-lines.h"
#include "served.h"
#include "shrink.h"
#include "tries.h"

/* splitmix64: the explorer's one source of randomness. */
static unsigned long long next_random(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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
	run_tries(e->served, jobs, n);
	for (int i = 0; i < n; i++) {
		struct classes seen;
		size_t fresh;

		if (jobs[i].status)
			die(EXIT_CAPTURE_FAILED, "the generator refused its own "
			    "step (its message is above)");
		e->tried++;
		seen = trace_classes(e->folder, &e->domain, slots[i].f.trace,
				     try_step_map(e, slots[i].f.steps), slots[i].f.scen);
		fresh = jobs[i].coverdir ? try_units(e, jobs[i].coverdir) : 0;
		if (keep_if_new(e, slots[i].f.scen, &seen, fresh))
			report(e, "kept");
		classes_free(&seen);
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

int explore_shard_option(const struct opt *o, const char *arg, struct cap_err *err)
{
	struct explore_opts *x = o->value;
	char *end;

	x->shard = (int)strtol(arg, &end, 10);
	if (*end == '/')
		x->shards = (int)strtol(end + 1, &end, 10);
	if (*end || x->shard < 1 || x->shards < x->shard)
		return cap_fail(err, EXIT_USAGE, "--shard %s: expected K/N with "
				"1 <= K <= N", arg);
	return 0;
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

void raft_explore(const struct explore_opts *x, const struct raft_harness *h,
		  const struct folder *f, const char *bin, const char *cover_bin,
		  int probed, const char *dir)
{
	int cleanup;
	char *work = work_dir(&cleanup), *origin;
	struct explorer e = { .x = x, .h = h, .package = h->module, .bin = bin,
			      .cover_bin = cover_bin, .work = work,
			      .folder = f, .domain = reachable_domain(f->audit),
			      .start = monotonic_seconds() };
	struct slot slots[BATCH];

	slots_init(slots, work);
	if (probed)
		e.served = served_start(e.h, cover_bin ? cover_bin : bin, work);
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
	if (e.served)
		served_stop(e.served);
	report(&e, "shrunk");
	origin = xasprintf("capture %s --explore: seed %llu, shard %d/%d%s",
			   h->name, x->seed, x->shard, x->shards,
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
	run_tries(e->served, &t->job, 1);
	if (t->job.status)
		die(EXIT_BAD_INPUT, "%s: bad scenario (the harness refused it)",
		    path);
	e->tried++;
	seen = trace_classes(e->folder, &e->domain, t->f.trace,
			     try_step_map(e, t->f.steps), path);
	keep_if_new(e, path, &seen, 0);
	classes_free(&seen);
}

/* On the stack: a refusal leaves nothing to free. */
void raft_merge_check(char *const *corpora, int n)
{
	char sdir[PATH_MAX];
	struct stat st;

	for (int i = 0; i < n; i++) {
		if (snprintf(sdir, sizeof(sdir), "%s/scenarios", corpora[i]) >=
		    (int)sizeof(sdir))
			die(EXIT_USAGE, "%.64s...: a path longer than PATH_MAX",
			    corpora[i]);
		if (stat(sdir, &st) || !S_ISDIR(st.st_mode))
			die(EXIT_USAGE, "%s: no scenarios directory (not an "
			    "explored corpus)", sdir);
	}
}

void raft_merge(char *const *corpora, int n, const struct raft_harness *h,
		const struct folder *f, const char *bin, int probed, const char *dir)
{
	int cleanup;
	char *work = work_dir(&cleanup), *origin;
	struct explorer e = { .h = h, .bin = bin, .work = work,
			      .folder = f, .domain = reachable_domain(f->audit),
			      .start = monotonic_seconds() };
	struct slot slots[BATCH];

	slots_init(slots, work);
	if (probed)
		e.served = served_start(e.h, bin, work);
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
	if (e.served)
		served_stop(e.served);
	report(&e, "merged");
	origin = xasprintf("capture %s --merge", h->name);
	write_kept(e.kept, e.nkept, origin, dir);
	free(origin);
	slots_free(slots);
	explorer_free(&e, work, cleanup);
}
