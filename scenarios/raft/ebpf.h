/* SPDX-License-Identifier: MIT */
/*
 * The eBPF driver of a raft harness (ebpf.c): every raft's
 * (scenarios/etcd/driver/etcd-harness.c, scenarios/hashicorp/driver/live.c,
 * scenarios/raftrs/live.c), each naming its harness and probe spec
 * (struct raft_harness); and what capture etcd --live
 * (scenarios/etcd/driver/cluster.c) shares with it: raft's probes on a
 * binary, their provenance, the driver's options.
 */
#ifndef SCENARIOS_RAFT_EBPF_H
#define SCENARIOS_RAFT_EBPF_H

#include <stdio.h>
#include <cJSON.h>
#include "../../capture/options.h"

struct gp_engine;
struct go_spec;
struct live_capture;
struct cap_err;

/*
 * The Go package of the raft language (scenarios/raft/lang), which runs a
 * Go harness's command line: -batch calls RAFT_LANG.scenarioStart before
 * each scenario, -serve RAFT_LANG.tryStart(i) and RAFT_LANG.tryEnd(i,
 * status) around each try.
 */
#define RAFT_LANG "raft/lang"

/*
 * A raft's harness under the probes, paths relative to capture's home
 * (the spec: to the toolkit's tree, as its BPF program): the Go main of
 * @src, run by RAFT_LANG, built into @bin, probed by @spec, its raft the
 * module @module of @src's go.mod.  Nothing else of the raft is known to
 * C.  A harness in another language names the functions its -batch calls
 * before each scenario (@start) and its -serve at each try (@try_start,
 * @try_end: their arguments i and status read where DWARF puts them),
 * builds itself into @bin (@build: returns the path), describes its
 * raft's version and its toolchain (@describe, with the harness's sha256,
 * as raft_describe_harness() does for Go's), and says whether --explore
 * has a coverage signal of it (@uncovered: none; the classes alone
 * guide).  A raft whose harness can also be built to write its events
 * itself (etcd's with_tla) names that build (@traced): the exploration's
 * tries under a driver other than eBPF run it.
 */
struct raft_harness {
	const char *name;    /* "etcd": progress and messages */
	const char *src, *bin, *spec, *module;
	const char *start;   /* NULL: RAFT_LANG.scenarioStart */
	const char *try_start, *try_end;   /* NULL: RAFT_LANG.tryStart, .tryEnd */
	char *(*build)(const struct raft_harness *h);          /* NULL: go build */
	void (*describe)(cJSON *env, const struct raft_harness *h, const char *bin);
	int uncovered;       /* 0: Go's coverage of @module (raft_cover_harness()) */
	char *(*traced)(int cover);   /* NULL: the eBPF driver is its only one */
};

/* @h's harness built (@h->build, else go build of @src), its path. */
char *raft_build_harness(const struct raft_harness *h);
/* The harness of @lc's driver, an eBPF driver's (RAFT_EBPF_DRIVER). */
const struct raft_harness *raft_driver_harness(const struct live_capture *lc);

/* The driver's options (lc->sel.driver_opts): --ring-bytes, --hold-ring, --resolve. */
struct raft_ebpf_opts {
	struct ring_options ring;
	const char *resolve;
	const struct raft_harness *h;   /* the driver's harness: its init */
};

/*
 * The eBPF driver over the harness @H (a struct raft_harness *), its
 * options' rows @TABLE (raft_ebpf_table, or RAFT_EBPF_ROWS of another
 * target): the system's lc->sel.opts is a struct raft_args (its --binary),
 * lc->data the harness's path, which the system's release() frees.
 */
#define RAFT_EBPF_DRIVER(H, TABLE) { \
	.name = "ebpf", .table = (TABLE), \
	.opts = { sizeof(struct raft_ebpf_opts), &(const struct raft_ebpf_opts){ .h = (H) } }, \
	.instead = raft_ebpf_instead, \
	.prepare = raft_ebpf_prepare, .run = raft_ebpf_run, \
	.describe = raft_ebpf_describe, }

/*
 * The rows of the driver's options, filling the struct raft_ebpf_opts *
 * @o: --ring-bytes, --hold-ring (their help of what the string literal
 * @target runs), --resolve.
 */
#define RAFT_EBPF_ROWS(o, target) \
	OPT_RING(&(o)->ring, target), \
	OPT_STRING(0, "resolve", &(o)->resolve, "FUNC", "print where FUNC would " \
		   "be probed, and exit")
/* The driver's options of "the harness" (RAFT_EBPF_ROWS). */
struct opt *raft_ebpf_table(void *opts);
int raft_ebpf_instead(struct live_capture *lc, struct cap_err *err);
void raft_ebpf_prepare(struct live_capture *lc);
void raft_ebpf_run(struct live_capture *lc);
void raft_ebpf_describe(struct live_capture *lc);

/*
 * A raft system's live hooks (etcd's, hashicorp's): the manifest's
 * scenario and via, and @h's harness provenance (lc->data: its path);
 * every target action required of --scenario all; lc->data freed.
 */
void raft_live_describe(struct live_capture *lc, cJSON *m, const struct raft_harness *h);
void raft_live_finish(struct live_capture *lc, const cJSON *counts);
void raft_live_release(struct live_capture *lc);

/* An engine on a binary with raft's probes (scenarios/etcd/raft.probes). */
struct raft_probed {
	struct gp_engine *e;
	struct go_spec *spec;	/* gp_run() it with go_spec_record */
	FILE *out;		/* its events */
	const char *raw;
};

/* Open the engine on @bin with @ring and @spec's probes, events to @raw (created). */
void raft_probed_open(struct raft_probed *p, const char *bin, const char *spec,
		      const char *raw, const struct ring_options *ring);
/*
 * After gp_run(): every record translated, @raw closed; returns the events
 * written.  The engine stays open for its stats (gp_close() it).
 */
long raft_probed_end(struct raft_probed *p);
/* What was probed, into @env: @bin's build id, the BPF object's and @spec's digests. */
void raft_describe_probes(const char *bin, const char *spec, cJSON *env);

#endif
