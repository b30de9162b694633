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
	"windows (needs root, as --via ebpf).\n\n"
	"options:\n"
	"  -s, --scenario NAME  a scenario (election, 01-election, ...), a scenario\n"
	"                       file (a path with a /), or all\n"
	"      --via PATH       ebpf or trace\n"
	"      --scenarios DIR  take the scenario files from DIR (default:\n"
	"                       scenarios/etcd, the reference scenarios)\n"
	"      --binary FILE    run this build instead of building one: the\n"
	"                       harness, or with --live scenarios/etcd/live's\n"
	RING_OPTIONS_HELP("the harness (the cluster)")
	"      --resolve FUNC   print where FUNC would be probed, and exit\n"
	"      --live           run the live cluster (above) instead of a scenario\n"
	"      --seconds N      --live: how long the workload runs (1..3600,\n"
	"                       default 30); --explore: try for N seconds instead\n"
	"                       of a budget (not reproducible)\n"
	"      --clients C      --live: concurrent clients (1..256, default 8)\n"
	"      --no-restart     --live: leave the leader running\n"
	"      --nemesis KIND,...  --live: faults from the seed instead of the restart:\n"
	"                       isolate, isolate-leader, bridge, one-way, pause,\n"
	"                       crash, loss, or all (docs/etcd-live.md)\n"
	"      --explore        search for scenarios that add audit classes (with\n"
	"                       the with_tla harness), shrink them, and capture\n"
	"                       them as a --scenarios directory (docs/etcd-explore.md)\n"
	"      --seed N         the exploration's or --live's seed (default 1)\n"
	"      --budget N       scenarios to try (default 200)\n"
	"      --shard K/N      shard K of N explorations of one seed\n"
	"      --unguided       fresh random scenarios only (a baseline)\n"
	"      --merge          capture the scenarios of explored CORPUS... that\n"
	"                       add classes, in order, as one corpus\n"
	OUTPUT_OPTIONS_HELP("corpus/etcd; --live: corpus/etcd-live")
	"  -h, --help           this text\n";

/* The driver option, --via, is 0x1201. */
enum { O_BINARY = 0x1200, O_LIVE = 0x1202, O_SECONDS, O_CLIENTS, O_NO_RESTART,
       O_EXPLORE, O_MERGE, O_SEED, O_BUDGET, O_SHARD, O_UNGUIDED, O_NEMESIS };

static const struct option etcd_options[] = {
	{ "binary", required_argument, NULL, O_BINARY },
	{ "live", no_argument, NULL, O_LIVE },
	{ "seconds", required_argument, NULL, O_SECONDS },
	{ "clients", required_argument, NULL, O_CLIENTS },
	{ "no-restart", no_argument, NULL, O_NO_RESTART },
	{ "explore", no_argument, NULL, O_EXPLORE },
	{ "merge", no_argument, NULL, O_MERGE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "budget", required_argument, NULL, O_BUDGET },
	{ "shard", required_argument, NULL, O_SHARD },
	{ "unguided", no_argument, NULL, O_UNGUIDED },
	{ "nemesis", required_argument, NULL, O_NEMESIS },
	{ 0 }
};

static const struct etcd_args etcd_defaults = {
	.raft = { .x = { .seed = 1, .shard = 1, .shards = 1 } },
};

static void etcd_option(void *opts, int opt, const char *arg)
{
	struct etcd_args *e = opts;

	for (unsigned i = 0; etcd_options[i].name; i++)
		if (etcd_options[i].val == opt)
			e->raft.given |= 1u << i;
	if (opt == O_BINARY)
		e->raft.binary = arg;
	else if (opt == O_LIVE || opt == O_EXPLORE || opt == O_MERGE)
		*(opt == O_LIVE ? &e->live : opt == O_EXPLORE ? &e->raft.explore : &e->merge) = 1;
	else if (opt == O_SECONDS)
		e->raft.seconds = arg;
	else if (opt == O_CLIENTS)
		e->clients = option_number(arg, "--clients", 1, 256);
	else if (opt == O_NO_RESTART)
		e->no_restart = 1;
	else if (opt == O_NEMESIS)
		e->nemesis = arg;
	else if (opt == O_SEED)
		e->raft.x.seed = option_unsigned(arg, "--seed");
	else if (opt == O_BUDGET)
		e->raft.x.budget = option_number(arg, "--budget", 1, 1000000000);
	else if (opt == O_SHARD)
		explore_parse_shard(&e->raft.x, arg);
	else
		e->raft.x.unguided = 1;
}

enum etcd_mode { SCENARIO, LIVE, EXPLORE, MERGE };

static const char *const mode_names[] = {
	"a scenario capture", "--live", "--explore", "--merge",
};

/* The modes an option of etcd's table goes with, as bits 1 << MODE. */
static unsigned option_modes(int opt)
{
	switch (opt) {
	case O_BINARY:
		return 1u << SCENARIO | 1u << LIVE;
	case O_SECONDS:
		return 1u << LIVE | 1u << EXPLORE | 1u << MERGE;
	case O_CLIENTS: case O_NO_RESTART: case O_NEMESIS:
		return 1u << LIVE;
	case O_SEED:
		return 1u << LIVE | 1u << EXPLORE | 1u << MERGE;
	case O_BUDGET: case O_SHARD: case O_UNGUIDED:
		return 1u << EXPLORE | 1u << MERGE;
	}
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
	for (unsigned i = 0; etcd_options[i].name; i++)
		if ((e->raft.given & 1u << i) && !(option_modes(etcd_options[i].val) & 1u << *m))
			return cap_fail(err, EXIT_USAGE, "--%s does not go with %s",
					etcd_options[i].name, mode_names[*m]);
	return 0;
}

/*
 * --live, --explore and --merge run instead of a scenario capture: no
 * --scenario or --scenarios (the exploration chooses them).
 */
static int etcd_instead(struct live_capture *lc, struct cap_err *err)
{
	enum etcd_mode m;

	if (etcd_mode(lc->opts, &m, err))
		return -1;
	if (m == SCENARIO)
		return LIVE_CAPTURE;
	if (lc->scenario || lc->scenarios)
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
	.options = etcd_options,
	.opts = { sizeof(struct etcd_args), &etcd_defaults },
	.option = etcd_option,
	.driver_option = { "via", required_argument, NULL, 0x1201 },
	.drivers = etcd_drivers,
	.raw_ext = "ndjson",
	.default_dir = "corpus/etcd",
	.instead = etcd_instead,
	.describe = etcd_describe,
	.finish = raft_live_finish,
	.release = raft_live_release,
};
