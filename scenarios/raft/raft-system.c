// SPDX-License-Identifier: MIT
/* The command every raft shares (raft-system.h). */
#include <stdlib.h>
#include <unistd.h>
#include "../../bpf/engine.h"
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/proc.h"
#include "../../capture/system.h"
#include "explore.h"
#include "harness.h"
#include "raft-system.h"

const struct raft_args raft_system_defaults = RAFT_ARGS_INIT;

struct opt *raft_system_rows(struct raft_args *e, const char *binary_help,
			     const char *explore_help)
{
	return raft_args_rows(e, (const struct opt[]){
		OPT_STRING(0, "binary", &e->binary, "FILE", binary_help),
		OPT_FLAG(0, "explore", &e->explore, explore_help),
		OPT_UNSIGNED(0, "seed", &e->x.seed, "N", "the search's seed "
			     "(default 1)"),
		OPT_NUMBER(0, "budget", &e->x.budget, "N", 1, 1000000000, "try N "
			   "scenarios (default 200)"),
		OPT_STRING(0, "seconds", &e->seconds, "S", "try for S seconds instead"),
		OPT_CALLBACK(0, "shard", &e->x, "K/N", explore_shard_option, "shard "
			     "K of N searches of one seed"),
		OPT_FLAG(0, "unguided", &e->x.unguided, "fresh random scenarios only "
			 "(a baseline)"),
		OPT_END(),
	});
}

/* Was an option of --explore's given (any but --binary and --explore)? */
static int explore_option_given(const struct raft_args *e)
{
	for (const struct opt *o = e->table; o->kind != OPT_KIND_END; o++)
		if (opt_given(o) && o->value != &e->binary && o->value != &e->explore)
			return 1;
	return 0;
}

/*
 * Find the scenarios of raft @h into @stage: an eBPF driver's --explore
 * and --merge with @h's plain harness under @h's probes, another
 * driver's (etcd's --via trace) with @h's harness that writes its own
 * trace.
 */
static void find_scenarios(struct live_capture *lc, const struct raft_harness *h,
			   const struct explore_opts *x, int merge, const char *stage)
{
	int probed = lc->driver->run == raft_ebpf_run;
	char *bin = probed ? raft_build_harness(h) : h->traced(0);
	char *cover = merge || x->unguided || h->uncovered ? NULL :
		probed ? raft_cover_harness(h->src, h->bin, h->module, h->name) :
		h->traced(1);

	if (merge)
		raft_merge(lc->sel.operands, lc->sel.noperands, h, lc->sys->folder, bin,
			   probed, stage);
	else
		raft_explore(x, h, lc->sys->folder, bin, cover, probed, stage);
	free(cover);
	free(bin);
}

/*
 * --explore, --merge CORPUS...: find the scenarios into a stage, then
 * capture them as the selection "--scenarios DIR/scenarios --scenario
 * all" (the command the manifest records: verify replays the kept
 * scenarios, whatever budget found them).
 */
static int explore_then_capture(struct live_capture *lc, const struct raft_harness *h,
				const struct explore_opts *x, int merge)
{
	char *stage = owned_tmp_in(temp_dir(), "capture-scenarios");
	char *keep = xasprintf("%s/scenarios", lc->sel.out.dir ? lc->sel.out.dir :
			       lc->live->default_dir);
	struct live_capture found = {
		.sys = lc->sys, .live = lc->live, .driver = lc->driver,
		.sel = { .scenario = "all", .scenarios = keep, .from = stage,
			 .out = lc->sel.out, .opts = lc->sel.opts,
			 .driver_opts = lc->sel.driver_opts },
		.folder = lc->folder,
	};
	int cleanup, rc;

	cleanup = mkdtemp_on_failure(stage);
	if (cleanup < 0)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", stage);
	find_scenarios(lc, h, x, merge, stage);
	rc = live_capture_run(&found);
	remove_tree(stage);
	cancel_on_failure(cleanup);
	free(stage);
	free(keep);
	return rc;
}

int raft_explore_capture(struct live_capture *lc, const struct raft_harness *h,
			 int merge, struct cap_err *err)
{
	const struct raft_args *e = lc->sel.opts;
	struct explore_opts x = e->x;

	if (lc->sel.driver_option)
		return cap_fail(err, EXIT_USAGE, "--%s does not go with --%s",
				lc->sel.driver_option, merge ? "merge" : "explore");
	if (merge ? !lc->sel.noperands : lc->sel.noperands)
		return live_misuse(err);
	if (merge)
		raft_merge_check(lc->sel.operands, lc->sel.noperands);
	if (e->seconds)
		x.seconds = option_seconds(e->seconds, "--seconds", 1e7);
	if (!x.budget && !x.seconds)
		x.budget = 200;
	if (lc->driver->run == raft_ebpf_run && gp_may_probe(err))
		die_err(err);
	return explore_then_capture(lc, h, &x, merge);
}

/*
 * --explore runs instead of a scenario capture: no --scenario,
 * --scenarios or --binary (it builds the harness it serves); its own
 * options only with it.
 */
int raft_system_instead(struct live_capture *lc, struct cap_err *err)
{
	const struct raft_args *e = lc->sel.opts;

	if (!e->explore && explore_option_given(e))
		return cap_fail(err, EXIT_USAGE, "--seed, --budget, --seconds, "
				"--shard and --unguided go with --explore");
	if (!e->explore)
		return LIVE_CAPTURE;
	if (e->binary)
		return cap_fail(err, EXIT_USAGE, "--binary does not go with --explore");
	if (lc->sel.scenario || lc->sel.scenarios)
		return live_misuse(err);
	return raft_explore_capture(lc, raft_driver_harness(lc), 0, err);
}

void raft_system_describe(struct live_capture *lc, cJSON *m)
{
	raft_live_describe(lc, m, raft_driver_harness(lc));
}
