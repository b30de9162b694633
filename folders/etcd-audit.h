/* SPDX-License-Identifier: MIT */
/*
 * The raft projection's audit domain ({role, term, vote, commit, log}):
 * etcd's, and every raft folded into its projection (raftkvs).
 */
#ifndef FOLDERS_ETCD_AUDIT_H
#define FOLDERS_ETCD_AUDIT_H

#include "../capture/audit.h"

extern const struct audit_domain etcd_audit;

#endif
