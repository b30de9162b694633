/* SPDX-License-Identifier: MIT */
/*
 * What `capture etcd` probes in an unmodified etcd raft (go.etcd.io/raft/v3)
 * and how the records become upstream's with_tla trace events.
 */
#ifndef CAPTURE_ETCD_PROBES_H
#define CAPTURE_ETCD_PROBES_H

#include <stdio.h>
#include "../../bpf/engine.h"

struct etcd_trace;

/* Resolve and register every raft probe on @e; events go to @out. */
struct etcd_trace *etcd_probes(struct gp_engine *e, FILE *out);
/* gp_run() callback: one record in, zero or more event lines out. */
void etcd_record(const struct gp_record *r, void *trace);
/* Events written; dies if a record could not be translated. */
long etcd_trace_end(struct etcd_trace *t);

#endif
