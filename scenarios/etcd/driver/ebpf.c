// SPDX-License-Identifier: MIT
/*
 * The etcd system's eBPF driver (scenarios/etcd/driver/harness.h): the harness
 * run under the Go uprobe engine (bpf/) with raft's probe spec
 * (scenarios/etcd/raft.probes, read by go-spec.c), which writes upstream's
 * with_tla event stream; and etcd's commands of its own (--live, --explore,
 * --merge).  The rest of etcd's live side is harness.c; what capture etcd
 * --live (cluster.c) shares with it is declared in cluster.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../../bpf/engine.h"
#include "harness.h"
#include "../../../capture/corpus.h"
#include "../../../capture/die.h"
#include "../../../capture/err.h"
#include "../../../capture/home.h"
#include "../../../capture/json.h"
#include "../../../capture/live.h"
#include "../../../capture/options.h"
#include "../../../capture/proc.h"
#include "goprobe.skel.h"
#include "../../../capture/command.h"
#include "../../../capture/system.h"
#include "explore.h"
#include "cluster.h"
#include "../../../capture/cmd/go-spec.h"
#include "../../../capture/cmd/fold-inputs.h"

enum { O_RING = 0x1300, O_HOLD, O_RESOLVE };

static const struct option ebpf_options[] = {
	{ "ring-bytes", required_argument, NULL, O_RING },
	{ "hold-ring", no_argument, NULL, O_HOLD },
	{ "resolve", required_argument, NULL, O_RESOLVE },
	{ 0 }
};

static struct {
	unsigned long ring_bytes;
	int hold_ring;
	const char *resolve;
} ebpf;

static void ebpf_option(int opt, const char *arg)
{
	if (opt == O_RING)
		ebpf.ring_bytes = option_ring_bytes(arg);
	else if (opt == O_HOLD)
		ebpf.hold_ring = 1;
	else
		ebpf.resolve = arg;
}

/* --resolve FUNC: where the engine would probe FUNC. */
static int ebpf_instead(struct live_capture *lc)
{
	struct go_binary *b;
	struct go_func f;
	struct cap_err err;

	(void)lc;
	if (!ebpf.resolve)
		return -1;
	b = go_open(etcd_harness(0), &err);
	if (!b || go_func(b, ebpf.resolve, &f, &err))
		die_err(&err);
	printf("%s: entry %#lx, stack check %s, %d RET site(s)\n", ebpf.resolve,
	       f.entry, f.check ? "probed at its JBE" : "none", f.nret);
	go_close(b);
	return EXIT_OK;
}

static void ebpf_prepare(struct live_capture *lc)
{
	struct cap_err err;

	(void)lc;
	if (gp_may_probe(&err))
		die_err(&err);
	etcd_harness(0);
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
static void run_probed(const char *bin, const char *scenario, const char *raw,
		       const char *tmp_out)
{
	struct cap_err err;
	struct gp_engine *e = gp_open(bin, &err);
	FILE *out;
	char *argv[] = { (char *)bin, (char *)scenario, NULL };
	struct go_spec *spec;
	size_t len = 0;
	char *stdout_text;
	int rc;

	if (!e)
		die_err(&err);
	out = fopen(raw, "w");
	if (!out)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", raw);
	gp_set_ring(e, ebpf.ring_bytes, ebpf.hold_ring);
	spec = etcd_probes(e, out);
	rc = gp_run(e, argv, tmp_out, ETCD_HARNESS_TIMEOUT, go_spec_record, spec,
		    &err);
	if (rc < 0)
		die_err(&err);
	etcd_harness_status(bin, scenario, rc);
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

/* What was probed: the harness's build id and the BPF object's digest. */
static void describe_probes(const char *bin, cJSON *env)
{
	struct cap_err err;
	struct go_binary *b = go_open(bin, &err);
	size_t sz;
	const void *obj = goprobe__elf_bytes(&sz);
	char *spec = probe_spec();
	char hex[65];

	if (!b)
		die_err(&err);
	json_add(env, "harness_build_id", json_str(go_build_id(b)));
	go_close(b);
	sha256_hex(obj, sz, hex);
	json_add(env, "bpf_object_sha256", json_str(hex));
	if (sha256_file(spec, hex))
		die(EXIT_ENV_MISSING, "%s: cannot read the probe spec", spec);
	json_add(env, "spec_sha256", json_str(hex));
	free(spec);
}

static void ebpf_run(struct live_capture *lc)
{
	const char *bin = etcd_harness(0);
	char *tmp_out = corpus_path(lc->corpus, ".harness-stdout");

	for (size_t i = 0; i < lc->n; i++) {
		progress("etcd %s (ebpf)", lc->sc[i].run);
		run_probed(bin, lc->sc[i].path, lc->raw[i], tmp_out);
	}
	unlink(tmp_out);
	free(tmp_out);
}

static void ebpf_describe(struct live_capture *lc)
{
	describe_probes(etcd_harness(0), lc->environment);
}

cJSON *etcd_environment(cJSON *m, const char *src, const char *bin, int probed)
{
	cJSON *env = json_add(m, "environment", json_obj());

	etcd_describe_harness(env, src, bin);
	if (probed)
		describe_probes(bin, env);
	return env;
}

void etcd_require_every_action(const struct folder *f, const cJSON *runs)
{
	/* In memory: reachable when the check dies (LeakSanitizer). */
	cJSON *volatile counts = run_counts(runs);

	etcd_require_actions(f, counts);
	cJSON_Delete(counts);
}

enum { O_EXPLORE = 0x1400, O_SEED, O_BUDGET, O_SECONDS, O_SHARD, O_UNGUIDED,
       O_MERGE, O_X_VIA, O_X_SCENARIOS };

/* capture etcd --explore | --merge CORPUS...: options and checks. */
struct explore_args {
	struct explore_opts x;
	int explore, merge, scenario;
	const char *via, *form, *json;   /* as given, for the capture's command */
	struct output_options out;
};

/* Whether argv asks for --explore or --merge (before any "--"). */
static int explore_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--explore") || !strcmp(argv[i], "--merge"))
			return 1;
	return 0;
}

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

static int explore_option(struct explore_args *o, int opt, const char *arg)
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
	else if (opt == O_X_VIA)
		o->via = arg;
	else if (opt == 'o')
		o->out.dir = arg;  /* the capture's -o: recorded as it is */
	else if (opt == 's' || opt == O_X_SCENARIOS)
		o->scenario = 1;   /* the exploration chooses them */
	else if (opt == 'F' || opt == 'J') {
		*(opt == 'F' ? &o->form : &o->json) = arg;
		return output_option(opt, arg, &o->out);
	} else
		return output_option(opt, arg, &o->out);
	return 1;
}

static void explore_parse(struct explore_args *o, int argc, char **argv,
			  const char *usage_text)
{
	static const struct option longopts[] = {
		{ "explore", no_argument, NULL, O_EXPLORE },
		{ "merge", no_argument, NULL, O_MERGE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "shard", required_argument, NULL, O_SHARD },
		{ "unguided", no_argument, NULL, O_UNGUIDED },
		{ "via", required_argument, NULL, O_X_VIA },
		{ "scenario", required_argument, NULL, 's' },
		{ "scenarios", required_argument, NULL, O_X_SCENARIOS },
		OUTPUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "s:o:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(usage_text, 1);
		if (!explore_option(o, opt, optarg))
			usage(usage_text, 0);
	}
	if (o->explore == o->merge || o->scenario ||
	    (!o->merge && optind != argc) || (o->merge && optind == argc) ||
	    (strcmp(o->via, "ebpf") && strcmp(o->via, "trace")))
		usage(usage_text, 0);
}

/*
 * --explore, --merge CORPUS...: find the scenarios with the with_tla
 * harness, then capture them as "--scenarios DIR/scenarios --scenario all",
 * the command the manifest records: verify replays the kept scenarios,
 * whatever budget found them.
 */
static int explore_then_capture(const struct system *sys, struct explore_args *o,
				char **corpora, int n)
{
	char *tla = etcd_go_build("scenarios/etcd", "build/etcd/harness-with_tla",
				  "with_tla", "the etcd harness (with_tla)");
	char *stage = xstrdup("/tmp/capture-scenarios-XXXXXX");
	const char *dir = o->out.dir ? o->out.dir : "corpus/etcd";
	char *keep = xasprintf("%s/scenarios", dir);
	char *argv[14] = { "etcd", "--scenarios", keep, "--scenario", "all",
			   "--via", (char *)o->via };
	int argc = 7, cleanup, rc;

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
	optind = 0;         /* getopt again, over the capture's own argv */
	rc = live_capture_from(sys, argc, argv, stage);
	remove_tree(stage);
	cancel_on_failure(cleanup);
	free(stage);
	free(keep);
	free(tla);
	return rc;
}

static int explore_command(int argc, char **argv)
{
	const struct system *sys = system_lookup("etcd");
	struct explore_args o = {
		.x = { .seed = 1, .shard = 1, .shards = 1 },
		.via = "ebpf", .out = OUTPUT_OPTIONS_INIT,
	};
	struct cap_err err;

	explore_parse(&o, argc, argv, sys->live->usage);
	if (!o.x.budget && !o.x.seconds)
		o.x.budget = 200;
	if (!strcmp(o.via, "ebpf") && gp_may_probe(&err))
		die_err(&err);
	return explore_then_capture(sys, &o, argv + optind, argc - optind);
}

int etcd_takeover(int argc, char **argv)
{
	if (etcd_live_wanted(argc, argv))
		return cmd_etcd_live(argc, argv);
	if (explore_wanted(argc, argv))
		return explore_command(argc, argv);
	return -1;
}

const struct live_driver etcd_ebpf_driver = {
	.name = "ebpf",
	.options = ebpf_options,
	.option = ebpf_option,
	.instead = ebpf_instead,
	.prepare = ebpf_prepare,
	.run = ebpf_run,
	.describe = ebpf_describe,
};
