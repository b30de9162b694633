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

/*
 * Place the probes of raft's spec (scenarios/etcd/raft.probes) on @e, its
 * events going to @out: gp_run() it with go_spec_record, then
 * go_spec_end() and go_spec_free() it.
 */
struct go_spec *etcd_probes(struct gp_engine *e, FILE *out);
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
