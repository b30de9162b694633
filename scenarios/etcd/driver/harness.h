/* SPDX-License-Identifier: MIT */
/*
 * The etcd system's live side (capture/live.h): the Go harness of
 * scenarios/etcd/ (a deterministic 3-node cluster on unmodified
 * go.etcd.io/raft/v3) and its drivers, the eBPF-probed run
 * (capture/cmd/etcd.c, beside the probe plan it needs) and the with_tla
 * trace (harness.c).
 */
#ifndef SCENARIOS_ETCD_HARNESS_H
#define SCENARIOS_ETCD_HARNESS_H

#include <cJSON.h>

/* Seconds one scenario's harness may run. */
#define ETCD_HARNESS_TIMEOUT 120.0

/*
 * The harness binary: --binary FILE, else built (reproducibly) into
 * build/etcd/, with upstream's with_tla hook if @tla; made once.
 */
const char *etcd_harness(int tla);

/* Die for the harness's exit @status (3: a bad scenario line). */
void etcd_harness_status(const char *bin, const char *scenario, int status);

extern const struct live_driver etcd_ebpf_driver, etcd_trace_driver;

#endif
