// SPDX-License-Identifier: MIT
/*
 * The zookeeper system's live entry (capture/live.h): `capture zookeeper`
 * runs each scenario on an ensemble of the real server (ensemble.h), its
 * jars as Maven Central gives them, pinned by sha256 (./install), every
 * JVM under capture's agent with fle.probes (jvm/engine.h), and writes
 * the spec's events (raw/RUN.ndjson, what the folder folds) beside the
 * agent's records (raw/RUN.records.ndjson).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../bpf/gospec.h"
#include "../../capture/corpus.h"
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/home.h"
#include "../../capture/json.h"
#include "../../capture/live.h"
#include "../../capture/proc.h"
#include "../../jvm/engine.h"
#include "ensemble.h"
#include "steps.h"

#define ZK_VERSION "3.9.1"

static const char zk_usage[] =
	"usage: capture zookeeper --scenario NAME|all [options]\n"
	"       capture zookeeper --classpath\n\n"
	"Run a scenario on an ensemble of ZooKeeper " ZK_VERSION " servers (Maven Central's\n"
	"jars, pinned by sha256, fetched once into capture's cache), each in a network\n"
	"namespace of its own, every JVM under capture's JVMTI agent with the probes of\n"
	"scenarios/zookeeper/fle.probes; fold the Fast Leader Election it reports into\n"
	"windows of SysMoBench's zookeeper task (docs/zookeeper.md).  Scenarios are the\n"
	"files NN-NAME of scenarios/zookeeper/.  Needs root (namespaces), java and Maven.\n";

struct zk_opts {
	int classpath;
};

struct zk_run {
	struct zk_scenario *sc;
	char *lib;
	cJSON *runs;            /* the agent's figures per run */
};

static struct opt *zk_table(void *opts)
{
	struct zk_opts *o = opts;

	return opt_table_dup((const struct opt[]){
		OPT_FLAG(0, "classpath", &o->classpath, "print the class path of "
			 "the server's jars (fetched\nif need be), for capture jvm "
			 "--describe, and exit"),
		OPT_END(),
	});
}

/* The server's jars in capture's cache, fetched by ./install if need be. */
static char *install(void)
{
	struct cap_err err;
	char *dest = cache_path(&err, "zookeeper/%s", ZK_VERSION), *script, *out, *lib;
	struct proc_result r;

	if (!dest)
		die_err(&err);
	script = xasprintf("%s/scenarios/zookeeper/install", capture_home());
	out = xasprintf("%s/install.out", dest);
	mkdir_p(dest);
	r = proc_run((const char *const[]){ "bash", script, dest, NULL }, out, NULL, 900);
	if (!r.exited || r.status)
		die(r.exited && r.status == 3 ? EXIT_BAD_INPUT : EXIT_ENV_MISSING,
		    "%s did not install ZooKeeper %s (exit %d)", script, ZK_VERSION, r.status);
	lib = read_file(out, NULL);
	lib[strcspn(lib, "\n")] = 0;
	unlink(out);
	free(out);
	free(script);
	free(dest);
	return lib;
}

static void zk_prepare(struct live_capture *lc)
{
	struct zk_run *run = xcalloc(1, sizeof(*run));

	run->sc = xcalloc(lc->n ? lc->n : 1, sizeof(*run->sc));
	for (size_t i = 0; i < lc->n; i++)
		zk_scenario_load(&run->sc[i], lc->sc[i].name, lc->sc[i].run, lc->sc[i].path);
	lc->data = run;
}

static int zk_instead(struct live_capture *lc, struct cap_err *err)
{
	const struct zk_opts *o = lc->sel.opts;
	char *lib, *cp;

	(void)err;
	if (!o->classpath)
		return LIVE_CAPTURE;
	lib = install();
	cp = zk_classpath(lib);
	printf("%s\n", cp);
	free(cp);
	free(lib);
	return EXIT_OK;
}

/* Root for the namespaces, the tools the ensemble runs, the jars. */
static void zk_jvm_prepare(struct live_capture *lc)
{
	static const char *const tools[] = { "java", "unshare", "nsenter", "ip", "nft", NULL };
	struct zk_run *run = lc->data;
	struct cap_err err;

	if (geteuid())
		die(EXIT_ENV_MISSING, "capture zookeeper needs root: each server runs in a "
		    "network namespace of its own");
	for (int i = 0; tools[i]; i++)
		if (!have_program(tools[i]))
			die(EXIT_ENV_MISSING, "no %s on PATH (make deps)", tools[i]);
	if (!jvm_agent_path(&err))
		die_err(&err);
	run->lib = install();
}

static char *spec_path(void)
{
	return xasprintf("%s/scenarios/zookeeper/fle.probes", capture_home());
}

/* The spec resolved once, in a JVM of the server's class path. */
static void check_spec(struct jvm_engine *e, const char *lib)
{
	char *cp = zk_classpath(lib);
	char *argv[] = { "java", "-cp", cp, "org.apache.zookeeper.server.quorum.QuorumPeerMain", NULL };
	struct cap_err err;

	progress("resolving fle.probes in a JVM of ZooKeeper %s", ZK_VERSION);
	if (jvm_check(e, argv, &err))
		die_err(&err);
	free(cp);
}

static void run_one(struct live_capture *lc, size_t i, const char *spec_file)
{
	struct zk_run *run = lc->data;
	struct cap_err err;
	struct go_spec *spec = go_spec_parse(spec_file, &err);
	struct jvm_engine *e = spec ? jvm_open(spec, spec_file, &err) : NULL;
	char *records = xasprintf("raw/%s.records.ndjson", lc->sc[i].run);
	FILE *raw, *events;
	struct zk_ensemble *en;
	cJSON *figures = json_obj();

	if (!e)
		die_err(&err);
	if (i == 0)
		check_spec(e, run->lib);
	raw = corpus_create(lc->corpus, records);
	events = fopen(lc->raw[i], "w");
	if (!events)
		die(EXIT_CAPTURE_FAILED, "%s: cannot write", lc->raw[i]);
	go_spec_output(spec, raw, events);
	jvm_start(e, go_spec_record, spec);
	en = zk_ensemble_new(run->sc[i].nservers, run->lib, jvm_agent_option(e, "run"), e);
	zk_ensemble_run(en, &run->sc[i]);
	if (jvm_stop(e, &err) || go_spec_end(spec, figures, &err))
		die_err(&err);
	zk_ensemble_free(en);
	json_add(figures, "jvms", json_int(jvm_stats(e)->jvms));
	json_add(run->runs, lc->sc[i].run, figures);
	progress("%s: %llu records from %d JVMs, 0 lost", lc->sc[i].run,
		 jvm_stats(e)->records, jvm_stats(e)->jvms);
	corpus_close(lc->corpus, raw, records);
	if (fclose(events))
		die(EXIT_CAPTURE_FAILED, "%s: cannot write", lc->raw[i]);
	jvm_close(e);
	go_spec_free(spec);
	free(records);
}

static void zk_run_all(struct live_capture *lc)
{
	struct zk_run *run = lc->data;
	char *spec = spec_path();

	corpus_keep_failed(lc->corpus);
	run->runs = json_obj();
	for (size_t i = 0; i < lc->n; i++)
		run_one(lc, i, spec);
	free(spec);
}

static void hash_into(cJSON *obj, const char *key, const char *path)
{
	char hex[65];

	if (sha256_file(path, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", path);
	json_add(obj, key, json_str(hex));
}

/* The server, the pins, the spec and the agent; what each run's JVMs said. */
static void zk_describe(struct live_capture *lc, cJSON *m)
{
	struct zk_run *run = lc->data;
	cJSON *env = lc->environment ? lc->environment : (lc->environment = json_obj());
	char *pins = xasprintf("%s/scenarios/zookeeper/jars.sha256", capture_home());
	char *spec = spec_path();
	struct cap_err err;

	json_add(env, "zookeeper", json_str(ZK_VERSION));
	hash_into(env, "jars_sha256", pins);
	hash_into(env, "spec_sha256", spec);
	hash_into(env, "agent_sha256", jvm_agent_path(&err));
	json_add(m, "probes", run->runs);
	run->runs = NULL;
	free(pins);
	free(spec);
}

static void zk_release(struct live_capture *lc)
{
	struct zk_run *run = lc->data;

	if (!run)
		return;
	for (size_t i = 0; i < lc->n; i++)
		zk_scenario_free(&run->sc[i]);
	free(run->sc);
	free(run->lib);
	cJSON_Delete(run->runs);
	free(run);
}

static const struct live_driver zk_jvm_driver = {
	.name = "jvm",
	.prepare = zk_jvm_prepare,
	.run = zk_run_all,
};

static const struct live_driver *const zk_drivers[] = {
	&zk_jvm_driver,
	NULL,
};

const struct live_system live_zookeeper = {
	.summary = "run a ZooKeeper ensemble's leader election under the JVM agent, fold it",
	.usage = zk_usage,
	.scenario_help = "a scenario name, or all",
	.scenarios_help = "take the scenario files from DIR",
	.dir_help = "corpus/zookeeper-NAME",
	.table = zk_table,
	.opts = { sizeof(struct zk_opts), NULL },
	.driver_row = LIVE_DRIVER_ROW('k', "runtime", "jvm", "how the servers are "
				      "probed (the one driver)"),
	.drivers = zk_drivers,
	.raw_ext = "ndjson",
	.prepare = zk_prepare,
	.instead = zk_instead,
	.describe = zk_describe,
	.release = zk_release,
};
