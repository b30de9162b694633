// SPDX-License-Identifier: MIT
/*
 * etcd's harnesses (etcd-harness.h): its raft under the probes, and the
 * with_tla build with upstream's trace hook, with the driver that runs
 * it natively.
 */
#include <stdlib.h>
#include "../../../capture/corpus.h"
#include "../../../capture/die.h"
#include "../../../capture/live.h"
#include "../../../capture/proc.h"
#include "../../raft/args.h"
#include "../../raft/ebpf.h"
#include "../../raft/harness.h"
#include "etcd-harness.h"

/*
 * Go writes no counters unless the main package is covered too; "count"
 * counters give the exploration how often each unit ran.
 */
char *etcd_traced_harness(int cover)
{
	static const char pkgs[] = "-coverpkg=.," ETCD_RAFT_PACKAGE;
	static const char *const count[3] = { "-cover", "-covermode=count", pkgs };

	if (cover)
		return raft_go_build("scenarios/etcd", "build/etcd/harness-with_tla-cover",
				     "with_tla", count,
				     "the etcd harness (with_tla, Go coverage of raft)");
	return raft_go_build("scenarios/etcd", "build/etcd/harness-with_tla",
			     "with_tla", NULL, "the etcd harness (with_tla)");
}

const char *etcd_harness(struct live_capture *lc)
{
	const struct raft_args *e = lc->sel.opts;

	if (!lc->data)
		lc->data = e->binary ? xstrdup(e->binary) : etcd_traced_harness(0);
	return lc->data;
}

static void trace_prepare(struct live_capture *lc)
{
	etcd_harness(lc);
}

/* The with_tla harness, writing its step map beside (folders/raft/raft-steps.h). */
static void trace_run(struct live_capture *lc)
{
	const char *harness = etcd_harness(lc);

	lc->maps = xcalloc(lc->n, sizeof(*lc->maps));
	for (size_t i = 0; i < lc->n; i++) {
		char *rel = xasprintf(".harness-steps-%s", lc->sc[i].run);
		const char *argv[4] = { harness, lc->sc[i].path, NULL, NULL };
		struct proc_result r;

		lc->maps[i] = corpus_path(lc->corpus, rel);
		argv[2] = lc->maps[i];
		free(rel);

		progress("etcd %s (trace)", lc->sc[i].run);
		r = proc_run(argv, lc->raw[i], NULL, RAFT_HARNESS_TIMEOUT);
		if (!r.exited)
			die(EXIT_CAPTURE_FAILED, "%s %s: %s %d", harness,
			    lc->sc[i].path, r.timed_out ? "timed out after" : "signal",
			    r.timed_out ? (int)RAFT_HARNESS_TIMEOUT : r.status);
		raft_harness_status(harness, lc->sc[i].path, r.status);
	}
}

const struct live_driver etcd_trace_driver = {
	.name = "trace",
	.prepare = trace_prepare,
	.run = trace_run,
};

const struct raft_harness etcd_raft_harness = {
	.name = "etcd",
	.src = "scenarios/etcd",
	.bin = "build/etcd/harness",
	.spec = "scenarios/etcd/raft.probes",
	.module = ETCD_RAFT_PACKAGE,
	.traced = etcd_traced_harness,
};

/* etcd's: its ring options are --live's cluster's too. */
static struct opt *etcd_ebpf_table(void *opts)
{
	struct raft_ebpf_opts *o = opts;

	return opt_table_dup((const struct opt[]){
		RAFT_EBPF_ROWS(o, "the harness (the cluster)"), OPT_END() });
}

const struct live_driver etcd_ebpf_driver =
	RAFT_EBPF_DRIVER(&etcd_raft_harness, etcd_ebpf_table);
