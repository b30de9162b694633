// SPDX-License-Identifier: MIT
/*
 * etcd: etcd-io/raft clusters from upstream's with_tla trace events, the
 * raft projection's reference system: folded by the projection's fold
 * (folders/raft/raft.c), with go.etcd.io/raft's impossible cells
 * (folders/raft/raft-audit.c).
 */
#include "../raft/raft-audit.h"
#include "../raft/raft.h"
#include "etcd.h"

static void etcd_fold(struct fold_run *run)
{
	raft_fold_projection(run, &folder_etcd, RAFT_NODES);
}

const struct folder folder_etcd = {
	.name = "etcd",
	.summary = "etcd-io/raft cluster from with_tla trace events (upstream's "
		   "zap-wrapped NDJSON or bare events)",
	.actions = raft_actions,
	.auxiliary = raft_auxiliary,
	.form = FORM_STREAM,
	.fold = etcd_fold,
	.audit = &raft_etcd_audit,
	.itf = raft_itf,
	.actor = raft_actor,
};
