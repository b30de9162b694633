// SPDX-License-Identifier: MIT
/*
 * raftrs: TiKV's raft-rs in the raft projection (folders/raft/raft.h's
 * RAFT_FOLDER), from the events of scenarios/raftrs/raft.probes
 * (docs/raftrs.md).
 */
#include "../raft/raft-audit.h"
#include "../raft/raft.h"

RAFT_FOLDER(raftrs, "TiKV's raft-rs (crate raft) in etcd's projection, "
	    "from its probe spec's events",
	    /* a port of etcd's raft: etcd's impossible cells hold for it */
	    &raft_etcd_audit);
