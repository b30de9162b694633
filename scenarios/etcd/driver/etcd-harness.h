/* SPDX-License-Identifier: MIT */
/*
 * etcd's harnesses (etcd-harness.c): the Go main of scenarios/etcd/ under
 * raft's probes (etcd's struct raft_harness and its eBPF driver), and
 * built with upstream's with_tla trace hook, which writes raft's events
 * itself, with the driver that runs it natively (--via trace).
 */
#ifndef SCENARIOS_ETCD_ETCD_HARNESS_H
#define SCENARIOS_ETCD_ETCD_HARNESS_H

struct live_capture;

/* etcd's raft package (go.mod's module), for the with_tla harness's build. */
#define ETCD_RAFT_PACKAGE "go.etcd.io/raft/v3"

/*
 * The with_tla harness built (reproducibly) into build/etcd/, its path;
 * with @cover, with "go build -cover" of itself and raft, into
 * build/etcd/harness-with_tla-cover (run under GOCOVERDIR, it writes
 * Go's coverage files, scenarios/raft/gocover.h).
 */
char *etcd_traced_harness(int cover);
/*
 * The harness --via trace runs: --binary FILE, else the with_tla one
 * built; made once, kept as lc->data (the etcd system's release() frees
 * it).  The eBPF driver runs etcd_raft_harness instead.
 */
const char *etcd_harness(struct live_capture *lc);

/* etcd's raft under the probes (scenarios/raft/ebpf.h), and its eBPF driver. */
extern const struct raft_harness etcd_raft_harness;
extern const struct live_driver etcd_ebpf_driver, etcd_trace_driver;

#endif
