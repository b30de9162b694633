/* SPDX-License-Identifier: MIT */
/*
 * The raft projection's audit domain ({role, term, vote, commit, log}):
 * etcd's, and every raft's folded into the projection (hashicorp, raftrs,
 * raftkvs).
 */
#ifndef FOLDERS_RAFT_RAFT_AUDIT_H
#define FOLDERS_RAFT_RAFT_AUDIT_H

#include "../../capture/audit.h"

/*
 * raft_etcd_audit: go.etcd.io/raft/v3's cells (the projection's impossible
 * ones and those only raftkvs reaches), for etcd and its ports (raftrs);
 * raft_audit: the projection's, for every raft folded into it (hashicorp,
 * raftkvs).
 */
extern const struct audit_domain raft_etcd_audit, raft_audit;

/*
 * The domain's pieces, for the projections of the same windows in other
 * shapes (etcd-task): its axes, its impossible cells, and the cell of
 * @action with @data {from, term, index} taking the acting node from @pre
 * to @post, each a slice {role, term, vote, commit, log}; 0: outside.
 */
void raft_audit_axes(struct audit_axes *ax, const cJSON *learned);
const char *raft_etcd_impossible(const char *row, const char *col);
const char *raft_audit_impossible(const char *row, const char *col);
int raft_audit_cell(const char *action, const cJSON *data, const cJSON *pre,
		    const cJSON *post, struct strbuf *row, struct strbuf *col);

#endif
