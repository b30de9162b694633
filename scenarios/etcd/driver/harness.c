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
	"       capture etcd --live [--seconds N] [options]   (see --live --help)\n"
	"       capture etcd --explore [--seed N] [--budget N|--seconds S] [--shard K/N] [options]\n"
	"       capture etcd --merge CORPUS... [options]\n\n"
	"Capture etcd raft (go.etcd.io/raft/v3, unmodified) running a scenario of\n"
	"scenarios/etcd/ on a 3-node cluster, and fold it into windows.\n"
	"  --via ebpf   (default) eBPF uprobes read raft's state from the process;\n"
	"               needs root (or CAP_BPF and CAP_PERFMON)\n"
	"  --via trace  the harness built with upstream's with_tla trace hook\n\n"
	"options:\n"
	"  -s, --scenario NAME  a scenario (election, 01-election, ...), a scenario\n"
	"                       file (a path with a /), or all\n"
	"      --via PATH       ebpf or trace\n"
	"      --scenarios DIR  take the scenario files from DIR (default:\n"
	"                       scenarios/etcd, the reference scenarios)\n"
	"      --binary FILE    probe this harness binary instead of building one\n"
	"      --ring-bytes N   ring-buffer size (power of two; default 4 MiB)\n"
	"      --hold-ring      read the ring buffer only after the harness exits\n"
	"                       (with a small --ring-bytes: tests loss accounting)\n"
	"      --resolve FUNC   print where FUNC would be probed, and exit\n"
	"      --explore        search for scenarios that add audit classes (with\n"
	"                       the with_tla harness), shrink them, and capture\n"
	"                       them as a --scenarios directory (docs/etcd.md)\n"
	"      --seed N         the exploration's seed (default 1)\n"
	"      --budget N       scenarios to try (default 200)\n"
	"      --seconds S      or try for S seconds (not reproducible)\n"
	"      --shard K/N      shard K of N explorations of one seed\n"
	"      --unguided       fresh random scenarios only (a baseline)\n"
	"      --merge          capture the scenarios of explored CORPUS... that\n"
	"                       add classes, in order, as one corpus\n"
	OUTPUT_OPTIONS_HELP("corpus/etcd")
	"  -h, --help           this text\n";

enum { O_BINARY = 0x1200 };

static const struct option etcd_options[] = {
	{ "binary", required_argument, NULL, O_BINARY },
	{ 0 }
};

static const char *binary;  /* --binary FILE */
static char *harness;       /* what etcd_harness() gave */

static void etcd_option(int opt, const char *arg)
{
	(void)opt;
	binary = arg;
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
		harness = binary ? xstrdup(binary) : build_harness(tla);
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
	char tmp[] = "/tmp/capture-goversion-XXXXXX";
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
	.command = etcd_takeover,
	.usage = etcd_usage,
	.options = etcd_options,
	.option = etcd_option,
	.driver_option = { "via", required_argument, NULL, 0x1201 },
	.drivers = etcd_drivers,
	.raw_ext = "ndjson",
	.default_dir = "corpus/etcd",
	.describe = etcd_describe,
	.finish = etcd_finish,
};
