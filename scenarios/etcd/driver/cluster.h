/* SPDX-License-Identifier: MIT */
/*
 * capture etcd --live (cluster.c) and what it shares with capture etcd
 * (ebpf.c): building a Go main, the manifest's environment.
 */
#ifndef CAPTURE_ETCD_LIVE_H
#define CAPTURE_ETCD_LIVE_H

#include <stdio.h>
#include <cJSON.h>
#include "harness.h"

struct folder;
struct gp_engine;
struct go_spec;
struct ring_options;

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
/* Add "environment" to manifest @m (see ebpf.c, spec_sha256 when probed); returns it. */
cJSON *etcd_environment(cJSON *m, const char *src, const char *bin, int probed);

/*
 * Die with EXIT_CHECK_FAILED unless @runs have a window of every target
 * action of @f (a probe that never fired gives none).
 */
void etcd_require_every_action(const struct folder *f, const cJSON *runs);

/*
 * The causal check of a live run's event stream @path (messages.c):
 * every Receive* event matches a Send* of the same message before it (a
 * receive consumes one send), sent by msg.from to msg.to.  Dies with
 * EXIT_CHECK_FAILED at the line of a receive that does not.  Adds
 * {"sent", "received", "not_received"} to @m as "messages".
 */
void etcd_check_messages(const char *path, cJSON *m);

#endif
