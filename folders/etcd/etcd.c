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
	etcd_fold_projection(run, &folder_etcd, ETCD_NODES);
}

const struct folder folder_etcd = {
	.name = "etcd",
	.summary = "etcd-io/raft cluster from with_tla trace events (upstream's "
		   "zap-wrapped NDJSON or bare events)",
	.actions = etcd_actions,
	.auxiliary = etcd_auxiliary,
	.form = FORM_STREAM,
	.fold = etcd_fold,
	.audit = &etcd_audit,
	.itf = etcd_itf,
	.actor = etcd_actor,
};
