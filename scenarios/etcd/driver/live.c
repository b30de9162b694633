// SPDX-License-Identifier: MIT
/*
 * The etcd system's live entry (capture/live.h): `capture etcd` runs the
 * deterministic 3-node harness on unmodified go.etcd.io/raft/v3 under the
 * Go uprobe engine (--via ebpf, scenarios/raft/ebpf.c) or built with
 * upstream's with_tla trace hook (--via trace, etcd-harness.c), writes its
 * with_tla event stream as raw/RUN.ndjson, and the etcd folder folds it.
 * Its option table holds the modes too: --live (cluster.c), and --explore
 * and --merge, which find scenarios (scenarios/raft/explore.c) and hand
 * the engine their capture.
 */
#include "../../../capture/err.h"
#include "../../../capture/live.h"
#include "../../../capture/options.h"
#include "../../raft/ebpf.h"
#include "../../raft/explore.h"
#include "../../raft/raft-system.h"
#include "cluster.h"
#include "etcd-args.h"
#include "etcd-harness.h"

static const char etcd_usage[] =
	"usage: capture etcd --scenario NAME|all [--via ebpf|trace] [options]\n"
	"       capture etcd --live [--seconds N] [--clients C] [--no-restart]\n"
	"                           [--nemesis KIND,...] [--seed N] [options]\n"
	"       capture etcd --explore [--seed N] [--budget N|--seconds S] [--shard K/N] [options]\n"
	"       capture etcd --merge CORPUS... [options]\n\n"
	"Capture etcd raft (go.etcd.io/raft/v3, unmodified) running a scenario of\n"
	"scenarios/etcd/ on a 3-node cluster, and fold it into windows.\n"
	"  --via ebpf   (default) eBPF uprobes read raft's state from the process;\n"
	"               needs root (or CAP_BPF and CAP_PERFMON)\n"
	"  --via trace  the harness built with upstream's with_tla trace hook\n"
	"--live runs a 3-member etcd cluster (go.etcd.io/etcd/server/v3,\n"
	"unmodified), each member in a network namespace of its own, under a\n"
	"put/get workload of C concurrent clients for N seconds, the leader\n"
	"killed under load half-way and restarted (or the faults of --nemesis),\n"
	"the clients' history checked for linearizability (Porcupine), every\n"
	"member probed by capture etcd's raft plan, and folds the events into\n"
	"windows (needs root, as --via ebpf).\n";

static const struct etcd_args etcd_defaults = ETCD_ARGS_INIT;

/* etcd's own options (etcd-args.h), the modes among them. */
static struct opt *etcd_table(void *opts)
{
	struct etcd_args *e = opts;

	return raft_args_rows(&e->raft, (const struct opt[]){
		OPT_STRING(0, "binary", &e->raft.binary, "FILE", "run this build instead "
			   "of building one: the\nharness, or with --live "
			   "scenarios/etcd/live's"),
		OPT_FLAG(0, "live", &e->live, "run the live cluster (above) instead "
			 "of a scenario"),
		OPT_STRING(0, "seconds", &e->raft.seconds, "N", "--live: how long the "
			   "workload runs (1..3600,\ndefault 30); --explore: try for "
			   "N seconds instead\nof a budget (not reproducible)"),
		OPT_NUMBER(0, "clients", &e->clients, "C", 1, 256, "--live: "
			   "concurrent clients (1..256, default 8)"),
		OPT_FLAG(0, "no-restart", &e->no_restart, "--live: leave the leader "
			 "running"),
		OPT_STRING(0, "nemesis", &e->nemesis, "KIND,...", "--live: faults from "
			   "the seed instead of the restart:\nisolate, isolate-leader, "
			   "bridge, one-way, pause,\ncrash, loss, or all "
			   "(docs/etcd-live.md)"),
		OPT_FLAG(0, "explore", &e->raft.explore, "search for scenarios that add "
			 "audit classes (with\nthe with_tla harness), shrink them, and "
			 "capture\nthem as a --scenarios directory "
			 "(docs/etcd-explore.md)"),
		OPT_UNSIGNED(0, "seed", &e->raft.x.seed, "N", "the exploration's or "
			     "--live's seed (default 1)"),
		OPT_NUMBER(0, "budget", &e->raft.x.budget, "N", 1, 1000000000, "scenarios "
			   "to try (default 200)"),
		OPT_CALLBACK(0, "shard", &e->raft.x, "K/N", explore_shard_option, "shard "
			     "K of N explorations of one seed"),
		OPT_FLAG(0, "unguided", &e->raft.x.unguided, "fresh random scenarios only "
			 "(a baseline)"),
		OPT_FLAG(0, "merge", &e->merge, "capture the scenarios of explored "
			 "CORPUS... that\nadd classes, in order, as one corpus"),
		OPT_END(),
	});
}

enum etcd_mode { SCENARIO, LIVE, EXPLORE, MERGE };

static const char *const mode_names[] = {
	"a scenario capture", "--live", "--explore", "--merge",
};

/* The modes the option of etcd's table that sets @v goes with, as bits 1 << MODE. */
static unsigned option_modes(const struct etcd_args *e, const void *v)
{
	if (v == &e->raft.binary)
		return 1u << SCENARIO | 1u << LIVE;
	if (v == &e->raft.seconds || v == &e->raft.x.seed)
		return 1u << LIVE | 1u << EXPLORE | 1u << MERGE;
	if (v == &e->clients || v == &e->no_restart || v == &e->nemesis)
		return 1u << LIVE;
	if (v == &e->raft.x.budget || v == &e->raft.x || v == &e->raft.x.unguided)
		return 1u << EXPLORE | 1u << MERGE;
	return ~0u;   /* the modes themselves: one at a time, below */
}

/*
 * Into @m, the mode the options ask for; -1 with @err if they ask for two,
 * or an option of another mode was given (the message names both).
 */
static int etcd_mode(const struct etcd_args *e, enum etcd_mode *m,
		     struct cap_err *err)
{
	*m = e->live ? LIVE : e->raft.explore ? EXPLORE : e->merge ? MERGE : SCENARIO;
	if (e->live + e->raft.explore + e->merge > 1)
		return live_misuse(err);
	for (const struct opt *o = e->raft.table; o->kind != OPT_KIND_END; o++)
		if (opt_given(o) && !(option_modes(e, o->value) & 1u << *m))
			return cap_fail(err, EXIT_USAGE, "--%s does not go with %s",
					o->long_name, mode_names[*m]);
	return 0;
}

/*
 * --live, --explore and --merge run instead of a scenario capture: no
 * --scenario or --scenarios (the exploration chooses them).
 */
static int etcd_instead(struct live_capture *lc, struct cap_err *err)
{
	enum etcd_mode m;

	if (etcd_mode(lc->sel.opts, &m, err))
		return -1;
	if (m == SCENARIO)
		return LIVE_CAPTURE;
	if (lc->sel.scenario || lc->sel.scenarios)
		return live_misuse(err);
	return m == LIVE ? etcd_live(lc, err) :
	       raft_explore_capture(lc, &etcd_raft_harness, m == MERGE, err);
}

/* The manifest's scenario and via; the harness's provenance. */
static void etcd_describe(struct live_capture *lc, cJSON *m)
{
	raft_live_describe(lc, m, &etcd_raft_harness);
}

static const struct live_driver *const etcd_drivers[] = {
	&etcd_ebpf_driver,
	&etcd_trace_driver,
	NULL,
};

const struct live_system live_etcd = {
	.summary = "run a scenario on etcd raft under eBPF probes, fold it",
	.usage = etcd_usage,
	.scenario_help = RAFT_SCENARIO_HELP,
	.scenarios_help = "take the scenario files from DIR (default:\n"
			  "scenarios/etcd, the reference scenarios)",
	.dir_help = "corpus/etcd; --live: corpus/etcd-live",
	.table = etcd_table,
	.opts = { sizeof(struct etcd_args), &etcd_defaults },
	.driver_row = LIVE_DRIVER_ROW(0, "via", "PATH", "ebpf or trace"),
	.drivers = etcd_drivers,
	.raw_ext = "ndjson",
	.default_dir = "corpus/etcd",
	.instead = etcd_instead,
	.describe = etcd_describe,
	.finish = raft_live_finish,
	.release = raft_live_release,
};
