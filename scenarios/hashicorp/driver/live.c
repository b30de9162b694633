// SPDX-License-Identifier: MIT
/*
 * The hashicorp system's live entry (capture/live.h): `capture hashicorp`
 * runs etcd's scenario files on a 3-node cluster of HashiCorp's raft
 * (github.com/hashicorp/raft, unmodified) driven by the Go harness of
 * scenarios/hashicorp/, under the probes of scenarios/hashicorp/raft.probes
 * (etcd's eBPF driver, ebpf.c, over another struct raft_harness), and
 * folds the events with etcd's folder into etcd's projection
 * (folders/etcd/hashicorp.c; docs/hashicorp.md).  In driver/ because
 * scenarios/hashicorp/ is a Go package (Go refuses C files beside its
 * own); its room sits above etcd's (tests/layers/layers.py), whose
 * driver and checks it runs.  Nothing in C knows hashicorp's types:
 * they are the spec's.
 */
#include "../../../capture/live.h"
#include "../../../capture/options.h"
#include "../../etcd/driver/args.h"
#include "../../etcd/driver/ebpf.h"
#include "../../etcd/driver/harness.h"

static const struct raft_harness hashicorp_raft_harness = {
	.name = "hashicorp",
	.src = "scenarios/hashicorp",
	.bin = "build/hashicorp/harness",
	.spec = "scenarios/hashicorp/raft.probes",
	.module = "github.com/hashicorp/raft",
};

static const char hashicorp_usage[] =
	"usage: capture hashicorp --scenario NAME|all [options]\n"
	"       capture hashicorp --explore [--seed N] [--budget N|--seconds S] [--unguided] [options]\n\n"
	"Capture HashiCorp's raft (github.com/hashicorp/raft, unmodified) running\n"
	"a scenario of etcd's (scenarios/etcd/) on a 3-node cluster under eBPF\n"
	"uprobes (needs root, or CAP_BPF and CAP_PERFMON), and fold it into\n"
	"windows of etcd's projection (docs/hashicorp.md).\n\n"
	"options:\n"
	"  -s, --scenario NAME  a scenario (election, 01-election, ...), a scenario\n"
	"                       file (a path with a /), or all\n"
	"      --scenarios DIR  take the scenario files from DIR (default:\n"
	"                       scenarios/etcd, etcd's reference scenarios)\n"
	"      --binary FILE    run this build of scenarios/hashicorp instead of\n"
	"                       building one\n"
	RING_OPTIONS_HELP("the harness")
	"      --resolve FUNC   print where FUNC would be probed, and exit\n"
	"      --explore        search for scenarios that add audit classes, as\n"
	"                       capture etcd --explore does (docs/hashicorp.md):\n"
	"                       the tries drawn from hashicorp's cluster state, run\n"
	"                       in one harness under the probes, guided by Go's\n"
	"                       coverage of hashicorp's raft; then capture them\n"
	"      --seed N         the search's seed (default 1)\n"
	"      --budget N       try N scenarios (default 200)\n"
	"      --seconds S      try for S seconds instead\n"
	"      --unguided       fresh random scenarios only (a baseline)\n"
	OUTPUT_OPTIONS_HELP("corpus/hashicorp")
	"  -h, --help           this text\n";

enum { O_BINARY = 0x1400, O_EXPLORE = 0x1402, O_SEED, O_BUDGET, O_SECONDS, O_UNGUIDED };

static const struct option hashicorp_options[] = {
	{ "binary", required_argument, NULL, O_BINARY },
	{ "explore", no_argument, NULL, O_EXPLORE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "budget", required_argument, NULL, O_BUDGET },
	{ "seconds", required_argument, NULL, O_SECONDS },
	{ "unguided", no_argument, NULL, O_UNGUIDED },
	{ 0 }
};

static const struct etcd_args hashicorp_defaults = {
	.x = { .seed = 1, .shard = 1, .shards = 1 },
};

static void hashicorp_option(void *opts, int opt, const char *arg)
{
	struct etcd_args *e = opts;

	if (opt != O_BINARY && opt != O_EXPLORE)
		e->given = 1;   /* an option of --explore's */
	if (opt == O_BINARY)
		e->binary = arg;
	else if (opt == O_EXPLORE)
		e->explore = 1;
	else if (opt == O_SEED)
		e->x.seed = option_unsigned(arg, "--seed");
	else if (opt == O_BUDGET)
		e->x.budget = option_number(arg, "--budget", 1, 1000000000);
	else if (opt == O_SECONDS)
		e->seconds = arg;
	else
		e->x.unguided = 1;
}

/*
 * --explore runs instead of a scenario capture: no --scenario,
 * --scenarios or --binary (it builds the harness it serves); its own
 * options only with it.
 */
static int hashicorp_instead(struct live_capture *lc, struct cap_err *err)
{
	const struct etcd_args *e = lc->opts;

	if (!e->explore && e->given)
		return cap_fail(err, EXIT_USAGE,
				"--seed, --budget, --seconds and --unguided go with --explore");
	if (!e->explore)
		return LIVE_CAPTURE;
	if (e->binary)
		return cap_fail(err, EXIT_USAGE, "--binary does not go with --explore");
	if (lc->scenario || lc->scenarios)
		return live_misuse(err);
	return raft_explore_capture(lc, &hashicorp_raft_harness, 0, err);
}

static void hashicorp_describe(struct live_capture *lc, cJSON *m)
{
	raft_live_describe(lc, m, &hashicorp_raft_harness);
}

static const struct live_driver hashicorp_ebpf_driver =
	RAFT_EBPF_DRIVER(&hashicorp_raft_harness);

static const struct live_driver *const hashicorp_drivers[] = {
	&hashicorp_ebpf_driver,
	NULL,
};

const struct live_system live_hashicorp = {
	.summary = "run etcd's scenarios on HashiCorp's raft under eBPF probes, fold it",
	.usage = hashicorp_usage,
	.options = hashicorp_options,
	.opts = { sizeof(struct etcd_args), &hashicorp_defaults },
	.option = hashicorp_option,
	.driver_option = { "via", required_argument, NULL, 0x1401 },
	.drivers = hashicorp_drivers,
	.raw_ext = "ndjson",
	.default_dir = "corpus/hashicorp",
	.instead = hashicorp_instead,
	.describe = hashicorp_describe,
	.finish = raft_live_finish,
	.release = raft_live_release,
};
