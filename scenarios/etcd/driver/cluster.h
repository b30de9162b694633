/* SPDX-License-Identifier: MIT */
/* capture etcd --live (cluster.c): a mode of the etcd system (live.c). */
#ifndef SCENARIOS_ETCD_CLUSTER_H
#define SCENARIOS_ETCD_CLUSTER_H

struct live_capture;
struct cap_err;

/*
 * The live cluster's capture, through the loop's engine with hooks of its
 * own: its exit code, or -1 with @err (a usage error).
 */
int etcd_live(struct live_capture *lc, struct cap_err *err);

#endif
