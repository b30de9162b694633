// SPDX-License-Identifier: MIT
/*
 * hashicorp: HashiCorp's raft in etcd's projection, folded by etcd's
 * folder (etcd.c) from the with_tla-shaped events its probe spec writes
 * (scenarios/hashicorp/raft.probes; docs/hashicorp.md, "mapping another
 * raft").  Its own name, so that its corpora and audits stand beside
 * etcd's; etcd's actions, checks, audit domain and grader.
 */
#include "etcd.h"
#include "../etcd-audit.h"

static void fold_hashicorp(struct fold_run *run)
{
	etcd_fold_projection(run, &folder_hashicorp, ETCD_NODES);
}

const struct folder folder_hashicorp = {
	.name = "hashicorp",
	.summary = "HashiCorp's raft (github.com/hashicorp/raft) in etcd's "
		   "projection, from its probe spec's events",
	.actions = etcd_actions,
	.form = FORM_STREAM,
	.fold = fold_hashicorp,
	.audit = &etcd_audit,
	.itf = etcd_itf,
	.actor = etcd_actor,
	/* etcd's actions: windows without a manifest are etcd's, unless --system */
	.refines = &folder_etcd,
};
