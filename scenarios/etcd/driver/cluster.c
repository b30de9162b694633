// SPDX-License-Identifier: MIT
/*
 * capture etcd --live: three members of the stock etcd server and a client
 * workload (scenarios/etcd/live/, one Go binary: its "cluster" command
 * makes the members' network namespaces, starts the members as processes
 * of itself, kills the leader under load half-way and restarts it or runs
 * the nemesis of --nemesis, stops them all, writes the clients' history
 * and checks it for linearizability), every process probed by the raft
 * plan capture etcd uses, the events folded by the etcd folder.  The run
 * is not deterministic; what is checked holds in any run: the history
 * linearizable, the folder's checks (terms, commits and logs never going
 * back on a node, one leader a term, the windows' self-consistency) and
 * the causal check of messages.c.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../../bpf/engine.h"
#include "../../../bpf/gospec.h"
#include "../../../capture/corpus.h"
#include "../../../capture/die.h"
#include "../../../capture/err.h"
#include "../../../capture/json.h"
#include "../../../capture/live.h"
#include "../../../capture/options.h"
#include "../../../capture/proc.h"
#include "../../../capture/system.h"
#include "../../raft/ebpf.h"
#include "../../raft/harness.h"
#include "cluster.h"
#include "etcd-args.h"
#include "etcd-harness.h"
#include "messages.h"

#define LIVE_SRC "scenarios/etcd/live"
/* Beyond the workload: starting, electing, restarting and stopping members. */
#define LIVE_SLACK 120.0

/* What --live reads of capture etcd's options, and what its run made (lc->data). */
struct cluster {
	long seconds, clients;
	int restart;
	const char *nemesis;	/* NULL: none */
	unsigned long long seed;
	const char *binary;
	const struct ring_options *ring;
	char *bin;           /* the cluster's binary */
	cJSON *probes;       /* the probes' counts */
};

/*
 * The cluster's exit statuses of its own (scenarios/etcd/live/main.go); 2
 * is also Go's flag package refusing a flag, so it is --nemesis's only with one.
 */
enum { CLUSTER_BAD_NEMESIS = 2, CLUSTER_NOT_LINEARIZABLE = 4 };

/* A failure's cleanup, before the corpus keeps the raw stream: its events written out. */
static void flush_raw(void *f)
{
	fflush(f);
}

/*
 * Run the cluster under the probes: the members are processes of the same
 * binary, followed as the cluster starts them; events to @raw, the
 * clients' history to @history, the cluster's summary line to @summary.
 * Returns the probes' counts.
 */
static cJSON *run_cluster(const struct cluster *o, const char *bin,
			  const char *members, const char *raw, const char *history,
			  const char *summary)
{
	struct cap_err err;
	struct raft_probed pr;
	char secs[24], clients[24], seed[24];
	char *argv[] = { (char *)bin, "cluster", "-dir", (char *)members,
			 "-seconds", secs, "-clients", clients,
			 o->restart ? "-restart=true" : "-restart=false",
			 "-history", (char *)history, "-seed", seed,
			 "-nemesis", (char *)(o->nemesis ? o->nemesis : ""), NULL };
	const struct gp_stats *st;
	cJSON *p;
	double start;
	int rc, cleanup;

	snprintf(secs, sizeof(secs), "%ld", o->seconds);
	snprintf(clients, sizeof(clients), "%ld", o->clients);
	snprintf(seed, sizeof(seed), "%llu", o->seed);
	raft_probed_open(&pr, bin, etcd_raft_harness.spec, raw, o->ring);
	cleanup = on_failure(flush_raw, pr.out);
	gp_follow(pr.e);
	start = monotonic_seconds();
	rc = gp_run(pr.e, argv, summary, (double)o->seconds + LIVE_SLACK,
		    go_spec_record, pr.spec, &err);
	if (rc < 0)
		die_err(&err);
	if (rc == CLUSTER_BAD_NEMESIS && o->nemesis)
		die(EXIT_USAGE, "--nemesis %s: see the cluster's message above", o->nemesis);
	if (rc == CLUSTER_NOT_LINEARIZABLE)
		die(EXIT_CHECK_FAILED, "the clients' history is not linearizable (the minimal history is above)");
	if (rc)
		die(EXIT_CAPTURE_FAILED, "%s cluster: exit status %d (its message is above)",
		    bin, rc);
	p = json_obj();
	cancel_on_failure(cleanup);
	json_add(p, "events", json_int(raft_probed_end(&pr)));
	st = gp_stats(pr.e);
	json_add(p, "records", json_int((long long)st->records));
	json_add(p, "records_per_second",
		 json_int((long long)(st->records / (monotonic_seconds() - start))));
	json_add(p, "ring_buffer_drops", json_int((long long)st->drops));
	gp_close(pr.e);
	return p;
}

/* The cluster's one line: requests, requests per second, the leaders. */
static void add_workload(cJSON *m, const char *summary)
{
	char *text = read_file(summary, NULL);
	cJSON *w = text ? cJSON_Parse(text) : NULL;

	if (!cJSON_IsObject(w))
		die(EXIT_CAPTURE_FAILED, "%s: the cluster printed no summary line",
		    summary);
	progress("workload: %.0f requests, %.0f/s, %.0f failed; linearizable (%.0f keys)%s",
		 cJSON_GetNumberValue(json_get(w, "requests")),
		 cJSON_GetNumberValue(json_get(w, "requests_per_second")),
		 cJSON_GetNumberValue(json_get(w, "failed")),
		 cJSON_GetNumberValue(json_get(json_get(w, "linearizability"), "keys")),
		 json_get(w, "nemesis") ? "; the nemesis's schedule in the manifest" : "");
	json_add(m, "workload", w);
	free(text);
}

/* Checks and builds: probing needs root; the binary is built once. */
static void cluster_prepare(struct live_capture *lc)
{
	struct cluster *o = lc->data;
	struct cap_err err;

	if (gp_may_probe(&err))
		die_err(&err);
	o->bin = o->binary ? xstrdup(o->binary) :
		 raft_go_build(LIVE_SRC, "build/etcd/live", "", NULL,
			       "the live etcd cluster (etcd server and client)");
}

/* The one run: the cluster under the probes, its events to raw/live.ndjson. */
static void cluster_run(struct live_capture *lc)
{
	struct cluster *o = lc->data;
	char *members = corpus_path(lc->corpus, ".members");
	char *summary = corpus_path(lc->corpus, ".summary");
	char *hist_dir = corpus_path(lc->corpus, "history");
	char *history = corpus_path(lc->corpus, "history/live.ndjson");
	int cleanup;

	mkdir_p(hist_dir);
	/*
	 * A live run cannot be repeated: a failure keeps what it captured
	 * (the raw stream, the history), but not the members' data
	 * directories (a preallocated 64 MB WAL segment each, 367 MB in all in an 8 s
	 * run), removed first.
	 */
	corpus_keep_failed(lc->corpus);
	cleanup = remove_on_failure(members);
	progress("etcd live cluster: %ld s, %ld clients%s%s", o->seconds, o->clients,
		 o->nemesis ? ", nemesis " : o->restart ? ", the leader restarted half-way" : "",
		 o->nemesis ? o->nemesis : "");
	o->probes = run_cluster(o, o->bin, members, lc->raw[0], history, summary);
	remove_tree(members);
	cancel_on_failure(cleanup);
	free(history);
	free(hist_dir);
	free(summary);
	free(members);
}

/*
 * The manifest: the environment (placed here, first), the parameters, the
 * probes' counts, the workload and the causal check of the messages.
 */
static void cluster_describe(struct live_capture *lc, cJSON *m)
{
	struct cluster *o = lc->data;
	cJSON *env = json_add(m, "environment", lc->environment), *l;
	char *summary = corpus_path(lc->corpus, ".summary"), *kept;

	lc->environment = NULL;
	raft_describe_harness(env, LIVE_SRC, etcd_raft_harness.module, o->bin);
	raft_describe_probes(o->bin, etcd_raft_harness.spec, env);
	json_add(env, "etcd_server_version",
		 raft_go_mod_version(LIVE_SRC, "go.etcd.io/etcd/server/v3"));
	l = json_add(m, "live", json_obj());
	json_add(l, "seconds", json_int(o->seconds));
	json_add(l, "clients", json_int(o->clients));
	json_add(l, "restart", json_bool(o->restart && !o->nemesis));
	if (o->nemesis) {
		json_add(l, "nemesis", json_str(o->nemesis));
		json_add(l, "seed", json_int((long long)o->seed));
	}
	json_add(m, "probes", o->probes);
	o->probes = NULL;
	add_workload(m, summary);
	unlink(summary);
	free(summary);
	kept = corpus_kept_path(lc->corpus, lc->raw[0]);
	etcd_check_messages(lc->raw[0], kept, m);
	free(kept);
}

/* Every target action, whatever the run: the workload exercises them all. */
static void cluster_finish(struct live_capture *lc, const cJSON *counts)
{
	raft_require_actions(lc->folder, counts);
}

static void cluster_release(struct live_capture *lc)
{
	struct cluster *o = lc->data;

	cJSON_Delete(o->probes);
	free(o->bin);
	free(o);
}

static const struct live_driver cluster_driver = {
	.name = "cluster",
	.prepare = cluster_prepare,
	.run = cluster_run,
};

/* The engine's hooks for --live: one run, "live", of its own kind. */
static const struct live_system cluster_live = {
	.raw_ext = "ndjson",
	.default_dir = "corpus/etcd-live",
	.describe = cluster_describe,
	.finish = cluster_finish,
	.release = cluster_release,
};

/* The selection of --live: one run, no scenario file. */
static struct scenario_file *live_run_file(void)
{
	struct scenario_file *f = xcalloc(1, sizeof(*f));

	f->name = xstrdup("live");
	f->run = xstrdup("live");
	return f;
}

/*
 * The cluster probes every member: the eBPF driver's (its ring options),
 * never the with_tla harness's trace; no scenario, no operand.
 */
int etcd_live(struct live_capture *lc, struct cap_err *err)
{
	const struct etcd_args *e = lc->sel.opts;
	long seconds = e->raft.seconds ?
		       option_number(e->raft.seconds, "--seconds", 1, 3600) : 30;
	struct cluster *o;

	if (lc->driver != &etcd_ebpf_driver)
		return cap_fail(err, EXIT_USAGE, "--via %s does not go with --live",
				lc->driver->name);
	if (lc->sel.noperands)
		return live_misuse(err);
	o = xcalloc(1, sizeof(*o));
	*o = (struct cluster){
		.seconds = seconds, .clients = e->clients ? e->clients : 8,
		.restart = !e->no_restart, .nemesis = e->nemesis, .seed = e->raft.x.seed,
		.binary = e->raft.binary,
		.ring = &((const struct raft_ebpf_opts *)lc->sel.driver_opts)->ring,
	};
	return live_capture_run(&(struct live_capture){
		.sys = lc->sys, .live = &cluster_live, .driver = &cluster_driver,
		.sel = { .out = lc->sel.out, .opts = lc->sel.opts,
			 .driver_opts = lc->sel.driver_opts,
			 .argc = lc->sel.argc, .argv = lc->sel.argv },
		.folder = lc->sys->folder,
		.sc = live_run_file(), .n = 1, .data = o,
	});
}
