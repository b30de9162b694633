/* SPDX-License-Identifier: MIT */
/*
 * The raft projection's fold (raft.c): upstream etcd's with_tla events,
 * or the same events a raft's probe spec writes, folded into the
 * reference projection {"nodes": {id: {role, term, vote, commit, log}}}
 * (etcd's, folders/etcd/etcd.c, and every raft folded into it), the one
 * at SysMoBench's task granularity (etcd-task: the same windows grouped
 * by variable, with the received message as the input) or the one with
 * each log's terms (etcd-entries).
 */
#ifndef FOLDERS_RAFT_RAFT_H
#define FOLDERS_RAFT_RAFT_H

#include "../../capture/itf.h"
#include "../../capture/system.h"

struct fold_run;

/*
 * The projection itself, as what a raft folded into it refines
 * (RAFT_FOLDER): its actions and other windows, no fold of its own,
 * no system of the table.  etcd's folder, the projection's reference,
 * refines nothing: windows of these actions without a manifest are
 * inferred to be etcd's, never another raft's (capture/window-read.c).
 */
extern const struct folder raft_projection;
/* Every projection's target actions, and the reference one's other windows. */
extern const char *const raft_actions[], *const raft_auxiliary[];
/* The state's sets and maps, and who acts: every raft's and etcd-entries'. */
extern const struct itf_var raft_itf[];
extern const char *const raft_actor[];

enum raft_shape {
	RAFT_NODES,    /* {nodes: {id: {role, term, vote, commit, log}}} */
	RAFT_TASK,     /* etcd-task: the same by variable */
	RAFT_ENTRIES,  /* etcd-entries: etcd's with each log's terms */
};

/* Fold @run as system @folder, its windows of shape @proj. */
void raft_fold_projection(struct fold_run *run, const struct folder *folder,
			  enum raft_shape proj);

/*
 * Another raft in the projection (folders/hashicorp/, folders/raftrs/),
 * folded by this fold from the with_tla-shaped events its probe spec
 * writes (docs/raft-mapping.md): its own name, so that its corpora and
 * audits stand beside etcd's; the projection's actions, checks and
 * grader, and the audit domain @AUDIT (raft-audit.h: etcd's cells, or
 * the projection's for a raft etcd's code does not decide).  Windows
 * without a manifest are etcd's, unless --system.
 */
#define RAFT_FOLDER(NAME, SUMMARY, AUDIT) \
	extern const struct folder folder_##NAME; \
	static void fold_##NAME(struct fold_run *run) \
	{ \
		raft_fold_projection(run, &folder_##NAME, RAFT_NODES); \
	} \
	const struct folder folder_##NAME = { \
		.name = #NAME, .summary = SUMMARY, .actions = raft_actions, \
		.form = FORM_STREAM, .fold = fold_##NAME, .audit = (AUDIT), \
		.itf = raft_itf, .actor = raft_actor, .refines = &raft_projection, \
	}

#endif
