// SPDX-License-Identifier: MIT
/*
 * capture etcd: run the deterministic 3-node harness (scenarios/etcd/) on
 * unmodified go.etcd.io/raft/v3 under the Go uprobe engine (bpf/), or built
 * with upstream's with_tla trace hook (--via trace), write its with_tla
 * event stream as raw/NN-name.ndjson and fold it with the etcd folder.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../bpf/engine.h"
#include "../../folders/folder.h"
#include "../command.h"
#include "../corpus.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "goprobe.skel.h"
#include "etcd-explore.h"
#include "etcd-live.h"
#include "fold-inputs.h"
#include "go-spec.h"

static const char etcd_usage[] =
	"usage: capture etcd --scenario NAME|FILE|all [--via ebpf|trace] [options]\n"
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

#define HARNESS_TIMEOUT 120.0

struct etcd_opts {
	const char *scenario, *via, *binary, *resolve, *scenarios;
	unsigned long ring_bytes;
	int hold_ring, explore, merge;
	struct explore_opts x;
	const char *form, *json;   /* as given, for a replay's command */
	struct output_options out;
	int argc;
	char **argv;
};

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
 * (reproducibly: -trimpath, no VCS stamp).  Go's build cache keeps what
 * was compiled: a rebuild of unchanged sources costs a link at most.
 */
char *etcd_go_build(const char *src, const char *bin, const char *tags,
		    const char *what)
{
	char *dir = xasprintf("%s/%s", capture_home(), src);
	char *out = xasprintf("%s/%s", capture_home(), bin);
	const char *argv[] = { go_tool(), "-C", dir, "build", "-trimpath",
			       "-buildvcs=false", "-mod=readonly",
			       "-tags", tags, "-o", out, ".", NULL };

	progress("building %s", what);
	setenv("GOTOOLCHAIN", "local", 1);
	proc_must(EXIT_ENV_MISSING, argv, NULL);
	free(dir);
	return out;
}

static char *build_harness(int tla)
{
	return etcd_go_build("scenarios/etcd", tla ? "build/etcd/harness-with_tla" :
			     "build/etcd/harness", tla ? "with_tla" : "",
			     tla ? "the etcd harness (with_tla)" : "the etcd harness");
}

/* The directory the scenario files are taken from. */
static char *scenario_dir(const struct etcd_opts *o)
{
	if (strchr(o->scenario, '/'))
		return xasprintf("%.*s", (int)(strrchr(o->scenario, '/') -
					       o->scenario), o->scenario);
	if (o->scenarios)
		return xstrdup(o->scenarios);
	return xasprintf("%s/scenarios/etcd", capture_home());
}

/*
 * Scenario files NN-name in @dir matching @want (or all).  A missing
 * directory is the installation's fault, or the user's with --scenarios.
 */
static char **find_scenarios(const struct etcd_opts *o, const char *dir,
			     const char *want, int *n)
{
	size_t all;
	char **names;

	if (strchr(want, '/')) {    /* a file: scenario_dir() took its dir */
		if (!file_exists(want))
			die(EXIT_USAGE, "%s: no such scenario file", want);
		names = xmalloc(sizeof(*names));
		names[0] = xstrdup(strrchr(want, '/') + 1);
		*n = 1;
		return names;
	}
	names = list_dir(dir, is_scenario_file, &all);
	if (!names)
		die(o->scenarios ? EXIT_USAGE : EXIT_ENV_MISSING,
		    "%s: cannot open the scenario directory", dir);
	*n = 0;
	for (size_t i = 0; i < all; i++) {
		const char *name;

		scenario_file_name(names[i], &name);
		if (!strcmp(want, "all") || !strcmp(want, names[i]) ||
		    !strcmp(want, name))
			names[(*n)++] = names[i];
		else
			free(names[i]);
	}
	if (!*n)
		die(EXIT_USAGE, "no etcd scenario '%s' (see capture list)", want);
	return names;
}

/* The harness exits 3 on a bad scenario line (its message names file:line). */
static void harness_status(const char *bin, const char *scenario, int status)
{
	if (status == EXIT_BAD_INPUT)
		die(EXIT_BAD_INPUT, "%s: bad scenario (the harness's message is above)",
		    scenario);
	if (status)
		die(EXIT_CAPTURE_FAILED, "%s %s: exit status %d", bin, scenario, status);
}

/*
 * The probe spec of raft (docs/go.md), next to the harness's source: the
 * toolkit's, as its BPF program, even where CAPTURE_HOME points the
 * scenarios elsewhere.
 */
static char *probe_spec(void)
{
	return xasprintf("%s/scenarios/etcd/raft.probes", toolkit_tree());
}

struct go_spec *etcd_probes(struct gp_engine *e, FILE *out)
{
	char *path = probe_spec();
	struct go_spec *spec = go_spec_parse(path);

	go_spec_probe(spec, e);
	go_spec_output(spec, NULL, out);
	free(path);
	return spec;
}

/* Run the harness under the probes; its events go to @raw. */
static void run_probed(const struct etcd_opts *o, const char *bin,
		       const char *scenario, const char *raw, const char *tmp_out)
{
	struct gp_engine *e = gp_open(bin);
	FILE *out = fopen(raw, "w");
	char *argv[] = { (char *)bin, (char *)scenario, NULL };
	struct go_spec *spec;
	size_t len = 0;
	char *stdout_text;
	int rc;

	if (!out)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", raw);
	gp_set_ring(e, o->ring_bytes, o->hold_ring);
	spec = etcd_probes(e, out);
	rc = gp_run(e, argv, tmp_out, HARNESS_TIMEOUT, go_spec_record, spec);
	harness_status(bin, scenario, rc);
	go_spec_end(spec, NULL);
	go_spec_free(spec);
	if (fclose(out))
		die(EXIT_CAPTURE_FAILED, "%s: write error", raw);
	stdout_text = read_file(tmp_out, &len);
	if (!stdout_text || len)
		die(EXIT_CAPTURE_FAILED,
		    "%s printed %zu bytes: the probed harness must print nothing (built with with_tla?)",
		    bin, len);
	free(stdout_text);
	gp_close(e);
}

/* The with_tla harness; @steps: its step map (etcd-steps.h). */
static void run_traced(const char *bin, const char *scenario, const char *raw,
		       const char *steps)
{
	const char *argv[] = { bin, scenario, steps, NULL };
	struct proc_result r = proc_run(argv, raw, NULL, HARNESS_TIMEOUT);

	if (!r.exited)
		die(EXIT_CAPTURE_FAILED, "%s %s: %s %d", bin, scenario,
		    r.timed_out ? "timed out after" : "signal",
		    r.timed_out ? (int)HARNESS_TIMEOUT : r.status);
	harness_status(bin, scenario, r.status);
}

/* The version go.mod in @src (relative to capture's home) requires of @module. */
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

/*
 * The manifest's environment: raft's version as @src's go.mod requires it,
 * Go's, the binary's sha256 and, when it is probed, its Go build id and the
 * BPF object's sha256.
 */
cJSON *etcd_environment(cJSON *m, const char *src, const char *bin, int probed)
{
	cJSON *env = json_add(m, "environment", json_obj());
	char hex[65];

	json_add(env, "raft_module", json_str("go.etcd.io/raft/v3"));
	json_add(env, "raft_version", etcd_go_mod_version(src, "go.etcd.io/raft/v3"));
	json_add(env, "go_version", go_version());
	if (sha256_file(bin, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", bin);
	json_add(env, "harness_sha256", json_str(hex));
	if (probed) {
		struct go_binary *b = go_open(bin);
		size_t sz;
		const void *obj = goprobe__elf_bytes(&sz);
		char *spec;

		json_add(env, "harness_build_id", json_str(go_build_id(b)));
		go_close(b);
		sha256_hex(obj, sz, hex);
		json_add(env, "bpf_object_sha256", json_str(hex));
		spec = probe_spec();
		if (sha256_file(spec, hex))
			die(EXIT_ENV_MISSING, "%s: cannot read the probe spec", spec);
		json_add(env, "spec_sha256", json_str(hex));
		free(spec);
	}
	return env;
}

/*
 * The scenarios together must exercise every target action: a capture that
 * misses one (a probe that never fired, a scenario file emptied) is no
 * corpus of this system.  Single scenarios may lack some (election has no
 * proposal).
 */
void etcd_require_every_action(const struct folder *f, const cJSON *runs)
{
	cJSON *counts = run_counts(runs);
	int missing = -1;

	for (int i = 0; f->actions[i] && missing < 0; i++)
		if (!json_get(counts, f->actions[i]))
			missing = i;
	cJSON_Delete(counts);
	if (missing >= 0)
		die(EXIT_CHECK_FAILED, "the capture gave no %s window: "
		    "every target action must have at least one",
		    f->actions[missing]);
}

/*
 * A corpus of scenarios from --scenarios DIR keeps a copy of each as
 * scenarios/NAME: what verify reruns, and what --merge reads.
 */
static void keep_scenario(struct corpus *c, const char *path, const char *name)
{
	char *rel = xasprintf("scenarios/%s", name);
	char *dst = corpus_path(c, rel);
	char *sdir = corpus_path(c, "scenarios");

	mkdir_p(sdir);
	free(sdir);
	if (copy_file(path, dst))
		die(EXIT_CAPTURE_FAILED, "%s: cannot copy into the corpus", path);
	free(dst);
	free(rel);
}

static void capture_all(const struct etcd_opts *o)
{
	int tla = !strcmp(o->via, "trace"), n;
	char *scen_dir = scenario_dir(o);
	char **names = find_scenarios(o, scen_dir, o->scenario, &n);
	char *bin = o->binary ? xstrdup(o->binary) : build_harness(tla);
	const struct folder *f = folder_lookup("etcd");
	char *dir = o->out.dir ? xstrdup(o->out.dir) : xstrdup("corpus/etcd");
	struct corpus *c = system_corpus_begin(dir, f, o->argc, o->argv);
	cJSON *m = corpus_manifest(c), *runs = json_arr();
	char *tmp_out = corpus_path(c, ".harness-stdout");
	char *steps = corpus_path(c, ".harness-steps");
	char *raw_dir = corpus_path(c, "raw");

	json_add(m, "scenario", json_str(o->scenario));
	json_add(m, "via", json_str(o->via));
	etcd_environment(m, "scenarios/etcd", bin, !strcmp(o->via, "ebpf"));
	for (int i = 0; i < n; i++) {
		char *scen = xasprintf("%s/%s", scen_dir, names[i]);
		char *rel = xasprintf("raw/%s.ndjson", names[i]);
		char *raw = corpus_path(c, rel);

		mkdir_p(raw_dir);
		progress("etcd %s (%s)", names[i], o->via);
		if (o->scenarios)
			keep_scenario(c, scen, names[i]);
		if (tla)
			run_traced(bin, scen, raw, steps);
		else
			run_probed(o, bin, scen, raw, tmp_out);
		fold_input_mapped(f, c, names[i], raw,
				  output_format_for(&o->out, f), runs,
				  tla ? steps : NULL);
		free(scen);
		free(rel);
		free(raw);
		free(names[i]);
	}
	unlink(tmp_out);
	unlink(steps);
	free(steps);
	if (!strcmp(o->scenario, "all"))
		etcd_require_every_action(f, runs);
	system_corpus_commit(c, runs, dir);
	free(tmp_out);
	free(raw_dir);
	free(names);
	free(bin);
	free(dir);
	free(scen_dir);
}

/*
 * --explore, --merge CORPUS...: find the scenarios with the with_tla
 * harness, then capture them as "--scenarios DIR/scenarios --scenario all",
 * the command the manifest records: verify replays the kept scenarios,
 * whatever budget found them.
 */
static void explore_then_capture(struct etcd_opts *o, char **corpora, int n)
{
	char *tla = build_harness(1), *stage = xstrdup("/tmp/capture-scenarios-XXXXXX");
	const char *dir = o->out.dir ? o->out.dir : "corpus/etcd";
	char *keep = xasprintf("%s/scenarios", dir);
	char *argv[14] = { "etcd", "--scenarios", keep, "--scenario", "all",
			   "--via", (char *)o->via };
	int argc = 7, cleanup;

	if (!mkdtemp(stage))
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", stage);
	cleanup = remove_on_failure(stage);
	if (o->merge)
		etcd_merge(corpora, n, tla, stage);
	else
		etcd_explore(&o->x, tla, stage);
	if (o->form) {
		argv[argc++] = "--form";
		argv[argc++] = (char *)o->form;
	}
	if (o->json) {
		argv[argc++] = "--json";
		argv[argc++] = (char *)o->json;
	}
	if (o->out.dir) {   /* the element command_argv() leaves out */
		argv[argc++] = "-o";
		argv[argc++] = (char *)o->out.dir;
	}
	o->scenarios = stage;
	o->scenario = "all";
	o->argc = argc;
	o->argv = argv;
	capture_all(o);
	remove_tree(stage);
	cancel_on_failure(cleanup);
	free(stage);
	free(keep);
	free(tla);
}

/* --resolve FUNC: where the engine would probe FUNC. */
static void resolve_only(const struct etcd_opts *o)
{
	char *bin = o->binary ? xstrdup(o->binary) : build_harness(0);
	struct go_binary *b = go_open(bin);
	struct go_func f;

	go_func(b, o->resolve, &f);
	printf("%s: entry %#lx, stack check %s, %d RET site(s)\n", o->resolve,
	       f.entry, f.check ? "probed at its JBE" : "none", f.nret);
	go_close(b);
	free(bin);
}

enum { O_VIA = 256, O_BINARY, O_RING, O_HOLD, O_RESOLVE, O_SCENARIOS,
       O_EXPLORE, O_SEED, O_BUDGET, O_SECONDS, O_SHARD, O_UNGUIDED, O_MERGE };

/* A number option of --explore; dies naming it. */
static double explore_number(const char *name, const char *arg, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || v <= 0 || v > max)
		die(EXIT_USAGE, "--%s: expected a number in (0, %g], not '%s'",
		    name, max, arg);
	return v;
}

static unsigned long long explore_seed(const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (end == arg || *end || *arg == '-')
		die(EXIT_USAGE, "--seed: expected an unsigned integer, not '%s'", arg);
	return v;
}

static int explore_option(struct etcd_opts *o, int opt, const char *arg)
{
	if (opt == O_EXPLORE)
		o->explore = 1;
	else if (opt == O_MERGE)
		o->merge = 1;
	else if (opt == O_SEED)
		o->x.seed = explore_seed(arg);
	else if (opt == O_BUDGET)
		o->x.budget = (long)explore_number("budget", arg, 1e9);
	else if (opt == O_SECONDS)
		o->x.seconds = explore_number("seconds", arg, 1e7);
	else if (opt == O_SHARD)
		explore_parse_shard(&o->x, arg);
	else if (opt == O_UNGUIDED)
		o->x.unguided = 1;
	else if (opt == 'F' || opt == 'J') {
		*(opt == 'F' ? &o->form : &o->json) = arg;
		return 0;   /* output_option() parses it */
	} else
		return 0;
	return 1;
}

static int explore_command(struct etcd_opts *o, int n, char **corpora)
{
	if (o->explore == o->merge || o->scenario || o->scenarios ||
	    (!o->merge && n) || (o->merge && !n) ||
	    (strcmp(o->via, "ebpf") && strcmp(o->via, "trace")))
		usage(etcd_usage, 0);
	if (!o->x.budget && !o->x.seconds)
		o->x.budget = 200;
	if (!strcmp(o->via, "ebpf"))
		gp_require_permission();
	explore_then_capture(o, corpora, n);
	return 0;
}

int cmd_etcd(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "via", required_argument, NULL, O_VIA },
		{ "binary", required_argument, NULL, O_BINARY },
		{ "ring-bytes", required_argument, NULL, O_RING },
		{ "hold-ring", no_argument, NULL, O_HOLD },
		{ "resolve", required_argument, NULL, O_RESOLVE },
		{ "scenarios", required_argument, NULL, O_SCENARIOS },
		{ "explore", no_argument, NULL, O_EXPLORE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "shard", required_argument, NULL, O_SHARD },
		{ "unguided", no_argument, NULL, O_UNGUIDED },
		{ "merge", no_argument, NULL, O_MERGE },
		OUTPUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct etcd_opts o = { .via = "ebpf", .out = OUTPUT_OPTIONS_INIT,
			       .argc = argc, .argv = argv,
			       .x = { .seed = 1, .shard = 1, .shards = 1 } };
	int opt;

	if (etcd_live_wanted(argc, argv))
		return cmd_etcd_live(argc, argv);
	while ((opt = getopt_long(argc, argv, "s:o:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(etcd_usage, 1);
		else if (opt == 's')
			o.scenario = optarg;
		else if (opt == O_VIA)
			o.via = optarg;
		else if (opt == O_BINARY)
			o.binary = optarg;
		else if (opt == O_RING)
			o.ring_bytes = option_ring_bytes(optarg);
		else if (opt == O_HOLD)
			o.hold_ring = 1;
		else if (opt == O_RESOLVE)
			o.resolve = optarg;
		else if (opt == O_SCENARIOS)
			o.scenarios = optarg;
		else if (!explore_option(&o, opt, optarg) &&
			 !output_option(opt, optarg, &o.out))
			usage(etcd_usage, 0);
	}
	if (o.explore || o.merge)
		return explore_command(&o, argc - optind, argv + optind);
	if (optind != argc)
		usage(etcd_usage, 0);
	if (o.resolve) {
		resolve_only(&o);
		return 0;
	}
	if (!o.scenario || (strcmp(o.via, "ebpf") && strcmp(o.via, "trace")))
		usage(etcd_usage, 0);
	if (!strcmp(o.via, "ebpf"))
		gp_require_permission();
	capture_all(&o);
	return 0;
}
