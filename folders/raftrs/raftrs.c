// SPDX-License-Identifier: MIT
/*
 * raftrs: TiKV's raft-rs in etcd's projection (raft.h's
 * ETCD_RAFT_FOLDER), from the events of scenarios/raftrs/raft.probes
 * (docs/raftrs.md).
 */
#include "../raft/raft.h"
#include "../raft/raft-audit.h"

ETCD_RAFT_FOLDER(raftrs, "TiKV's raft-rs (crate raft) in etcd's projection, "
		 "from its probe spec's events",
		 /* a port of etcd's raft: etcd's impossible cells hold for it */
		 &etcd_audit);
