/* SPDX-License-Identifier: MIT */
/*
 * The etcd system's eBPF driver (ebpf.c) and what capture etcd --live
 * (cluster.c) shares with it: raft's probes on a Go binary, their
 * provenance, the driver's options.
 */
#ifndef SCENARIOS_ETCD_EBPF_H
#define SCENARIOS_ETCD_EBPF_H

#include <stdio.h>
#include <cJSON.h>
#include "../../../capture/options.h"

struct gp_engine;
struct go_spec;

extern const struct live_driver etcd_ebpf_driver;

/* The driver's options (lc->driver_opts): --ring-bytes, --hold-ring, --resolve. */
struct etcd_ebpf_opts {
	struct ring_options ring;
	const char *resolve;
};

/* An engine on a binary with raft's probes (scenarios/etcd/raft.probes). */
struct etcd_probed {
	struct gp_engine *e;
	struct go_spec *spec;	/* gp_run() it with go_spec_record */
	FILE *out;		/* its events */
	const char *raw;
};

/* Open the engine on @bin with @ring and the probes, events to @raw (created). */
void etcd_probed_open(struct etcd_probed *p, const char *bin, const char *raw,
		      const struct ring_options *ring);
/*
 * After gp_run(): every record translated, @raw closed; returns the events
 * written.  The engine stays open for its stats (gp_close() it).
 */
long etcd_probed_end(struct etcd_probed *p);
/* What was probed, into @env: @bin's build id, the BPF object's and the spec's digests. */
void etcd_describe_probes(const char *bin, cJSON *env);

#endif
