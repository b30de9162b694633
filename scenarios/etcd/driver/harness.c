// SPDX-License-Identifier: MIT
/*
 * The etcd system's live entry (harness.h): `capture etcd` runs the
 * deterministic 3-node harness on unmodified go.etcd.io/raft/v3 under the
 * Go uprobe engine (--via ebpf) or built with upstream's with_tla trace
 * hook (--via trace), writes its with_tla event stream as raw/RUN.ndjson,
 * and the etcd folder folds it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../../capture/corpus.h"
#include "../../../capture/die.h"
#include "../../../capture/home.h"
#include "../../../capture/json.h"
#include "../../../capture/live.h"
#include "../../../capture/options.h"
#include "../../../capture/proc.h"
#include "../../../capture/system.h"
#include "harness.h"

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
	"                       them as a --scenarios directory (docs/etcd.md)\n"
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

struct etcd_args etcd_args = { .x = { .seed = 1, .shard = 1, .shards = 1 } };
static char *harness;       /* what etcd_harness() gave */

static void etcd_option(int opt, const char *arg)
{
	struct etcd_args *e = &etcd_args;

	for (unsigned i = 0; etcd_options[i].name; i++)
		if (etcd_options[i].val == opt)
			e->given |= 1u << i;
	if (opt == O_BINARY)
		e->binary = arg;
	else if (opt == O_LIVE || opt == O_EXPLORE || opt == O_MERGE)
		*(opt == O_LIVE ? &e->live : opt == O_EXPLORE ? &e->explore : &e->merge) = 1;
	else if (opt == O_SECONDS)
		e->seconds = arg;
	else if (opt == O_CLIENTS)
		e->clients = option_number(arg, "--clients", 1, 256);
	else if (opt == O_NO_RESTART)
		e->no_restart = 1;
	else if (opt == O_NEMESIS)
		e->nemesis = arg;
	else if (opt == O_SEED)
		e->x.seed = option_unsigned(arg, "--seed");
	else if (opt == O_BUDGET)
		e->x.budget = option_number(arg, "--budget", 1, 1000000000);
	else if (opt == O_SHARD)
		explore_parse_shard(&e->x, arg);
	else
		e->x.unguided = 1;
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

/* The mode argv asks for; an option of another mode dies naming both. */
static enum etcd_mode etcd_mode(struct live_capture *lc)
{
	const struct etcd_args *e = &etcd_args;
	enum etcd_mode m = e->live ? LIVE : e->explore ? EXPLORE : e->merge ? MERGE :
			   SCENARIO;

	if (e->live + e->explore + e->merge > 1)
		live_usage(lc);
	for (unsigned i = 0; etcd_options[i].name; i++)
		if ((e->given & 1u << i) && !(option_modes(etcd_options[i].val) & 1u << m))
			die(EXIT_USAGE, "--%s does not go with %s", etcd_options[i].name,
			    mode_names[m]);
	return m;
}

/*
 * --live, --explore and --merge run instead of a scenario capture: no
 * --scenario or --scenarios (the exploration chooses them).
 */
static int etcd_instead(struct live_capture *lc)
{
	enum etcd_mode m = etcd_mode(lc);

	if (m == SCENARIO)
		return -1;
	if (lc->scenario || lc->scenarios)
		live_usage(lc);
	return m == LIVE ? etcd_live(lc) : etcd_explore_capture(lc);
}

static const char *go_tool(void)
{
	if (have_program("go"))
		return "go";
	if (file_exists("/usr/local/go/bin/go"))
		return "/usr/local/go/bin/go";
	die(EXIT_ENV_MISSING, "no Go toolchain (go on PATH or /usr/local/go/bin/go)");
}

/*
 * Build the Go main in @src (relative to capture's home) into @bin
 * (reproducibly: -trimpath, no VCS stamp), with @cover's coverage flags
 * (NULL: none).  Go's build cache keeps what was compiled: a rebuild of
 * unchanged sources costs a link at most.
 */
static char *go_build(const char *src, const char *bin, const char *tags,
		      const char *const cover[3], const char *what)
{
	char *dir = xasprintf("%s/%s", capture_home(), src);
	char *out = xasprintf("%s/%s", capture_home(), bin);
	const char *argv[16] = { go_tool(), "-C", dir, "build", "-trimpath",
				 "-buildvcs=false", "-mod=readonly" };
	int argc = 7;

	for (int i = 0; cover && i < 3; i++)
		argv[argc++] = cover[i];
	argv[argc++] = "-tags";
	argv[argc++] = tags;
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = ".";
	progress("building %s", what);
	setenv("GOTOOLCHAIN", "local", 1);
	proc_must(EXIT_ENV_MISSING, argv, NULL);
	free(dir);
	return out;
}

char *etcd_go_build(const char *src, const char *bin, const char *tags,
		    const char *what)
{
	return go_build(src, bin, tags, NULL, what);
}

/*
 * Go writes no counters unless the main package is covered too; "count"
 * counters give the exploration how often each unit ran.
 */
char *etcd_cover_harness(void)
{
	static const char pkgs[] = "-coverpkg=.," ETCD_RAFT_PACKAGE;
	static const char *const cover[3] = { "-cover", "-covermode=count", pkgs };

	return go_build("scenarios/etcd", "build/etcd/harness-with_tla-cover",
			"with_tla", cover,
			"the etcd harness (with_tla, Go coverage of raft)");
}

static char *build_harness(int tla)
{
	return etcd_go_build("scenarios/etcd", tla ? "build/etcd/harness-with_tla" :
			     "build/etcd/harness", tla ? "with_tla" : "",
			     tla ? "the etcd harness (with_tla)" : "the etcd harness");
}

const char *etcd_harness(int tla)
{
	if (!harness)
		harness = etcd_args.binary ? xstrdup(etcd_args.binary) :
			  build_harness(tla);
	return harness;
}

void etcd_harness_status(const char *bin, const char *scenario, int status)
{
	if (status == EXIT_BAD_INPUT)
		die(EXIT_BAD_INPUT, "%s: bad scenario (the harness's message is above)",
		    scenario);
	if (status)
		die(EXIT_CAPTURE_FAILED, "%s %s: exit status %d", bin, scenario, status);
}

cJSON *etcd_go_mod_version(const char *src, const char *module)
{
	char *path = xasprintf("%s/%s/go.mod", capture_home(), src);
	char *want = xasprintf("%s ", module);
	char *text = read_file(path, NULL), *p = text;
	cJSON *v;

	/* "require M V" or, in a block, "\tM V" */
	while (p && (p = strstr(p, want)) &&
	       (p == text || (p[-1] != ' ' && p[-1] != '\t')))
		p++;
	if (!p)
		die(EXIT_ENV_MISSING, "%s: no %s requirement", path, module);
	p += strlen(want);
	p[strcspn(p, " \n")] = 0;
	v = json_str(p);
	free(text);
	free(want);
	free(path);
	return v;
}

static cJSON *go_version(void)
{
	const char *argv[] = { go_tool(), "env", "GOVERSION", NULL };
	char *tmp = owned_tmp_in(temp_dir(), "capture-goversion");
	int fd = mkstemp(tmp), cleanup;
	char *text;
	cJSON *v;

	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "mkstemp: cannot create a temporary file");
	close(fd);
	cleanup = remove_on_failure(tmp);
	proc_must(EXIT_ENV_MISSING, argv, tmp);
	text = read_file(tmp, NULL);
	unlink(tmp);
	cancel_on_failure(cleanup);
	free(tmp);
	if (!text)
		die(EXIT_CAPTURE_FAILED, "cannot read the output of go env");
	text[strcspn(text, "\n")] = 0;
	v = json_str(text);
	free(text);
	return v;
}

void etcd_describe_harness(cJSON *env, const char *src, const char *bin)
{
	char hex[65];

	json_add(env, "raft_module", json_str("go.etcd.io/raft/v3"));
	json_add(env, "raft_version", etcd_go_mod_version(src, "go.etcd.io/raft/v3"));
	json_add(env, "go_version", go_version());
	if (sha256_file(bin, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", bin);
	json_add(env, "harness_sha256", json_str(hex));
}

/* The manifest's scenario and via; the harness's provenance. */
static void etcd_describe(struct live_capture *lc, cJSON *m)
{
	json_add(m, "scenario", json_str(lc->scenario));
	json_add(m, "via", json_str(lc->driver->name));
	etcd_describe_harness(lc->environment, "scenarios/etcd", harness);
}

/*
 * The scenarios together must exercise every target action: a capture that
 * misses one (a probe that never fired, a scenario file emptied) is no
 * corpus of this system.  Single scenarios may lack some (election has no
 * proposal).
 */
void etcd_require_actions(const struct folder *f, const cJSON *counts)
{
	for (int i = 0; f->actions[i]; i++)
		if (!json_get(counts, f->actions[i]))
			die(EXIT_CHECK_FAILED, "the capture gave no %s window: "
			    "every target action must have at least one",
			    f->actions[i]);
}

static void etcd_finish(struct live_capture *lc, const cJSON *counts)
{
	if (!strcmp(lc->scenario, "all"))
		etcd_require_actions(lc->sys->folder, counts);
}

static void trace_prepare(struct live_capture *lc)
{
	(void)lc;
	etcd_harness(1);
}

/* The with_tla harness, writing its step map beside (etcd-steps.h). */
static void trace_run(struct live_capture *lc)
{
	lc->maps = xcalloc(lc->n, sizeof(*lc->maps));
	for (size_t i = 0; i < lc->n; i++) {
		char *rel = xasprintf(".harness-steps-%s", lc->sc[i].run);
		const char *argv[4] = { harness, lc->sc[i].path, NULL, NULL };
		struct proc_result r;

		lc->maps[i] = corpus_path(lc->corpus, rel);
		argv[2] = lc->maps[i];
		free(rel);

		progress("etcd %s (trace)", lc->sc[i].run);
		r = proc_run(argv, lc->raw[i], NULL, ETCD_HARNESS_TIMEOUT);
		if (!r.exited)
			die(EXIT_CAPTURE_FAILED, "%s %s: %s %d", harness,
			    lc->sc[i].path, r.timed_out ? "timed out after" : "signal",
			    r.timed_out ? (int)ETCD_HARNESS_TIMEOUT : r.status);
		etcd_harness_status(harness, lc->sc[i].path, r.status);
	}
}

const struct live_driver etcd_trace_driver = {
	.name = "trace",
	.prepare = trace_prepare,
	.run = trace_run,
};

static const struct live_driver *const etcd_drivers[] = {
	&etcd_ebpf_driver,
	&etcd_trace_driver,
	NULL,
};

const struct live_system live_etcd = {
	.summary = "run a scenario on etcd raft under eBPF probes, fold it",
	.usage = etcd_usage,
	.options = etcd_options,
	.option = etcd_option,
	.driver_option = { "via", required_argument, NULL, 0x1201 },
	.drivers = etcd_drivers,
	.raw_ext = "ndjson",
	.default_dir = "corpus/etcd",
	.instead = etcd_instead,
	.describe = etcd_describe,
	.finish = etcd_finish,
};
