// SPDX-License-Identifier: MIT
/*
 * hashicorp: HashiCorp's raft in the raft projection (folders/raft/raft.h's
 * RAFT_FOLDER), from the events of scenarios/hashicorp/raft.probes
 * (docs/raft-mapping.md).
 */
#include "../raft/raft-audit.h"
#include "../raft/raft.h"

RAFT_FOLDER(hashicorp, "HashiCorp's raft (github.com/hashicorp/raft) in etcd's "
	    "projection, from its probe spec's events",
	    /*
	     * The projection's impossible cells, not etcd's own (decided from
	     * etcd's code): hashicorp's replicator sends a snapshot to a node
	     * of an older term (docs/hashicorp.md), which etcd's leader never
	     * does.
	     */
	    &raft_audit);
