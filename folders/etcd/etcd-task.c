// SPDX-License-Identifier: MIT
/*
 * etcd-task: etcd's windows at SysMoBench's task granularity (raft.c;
 * tla_eval/skills/wv-eval/references/canonical_window_format.md): state
 * grouped by variable, each a map from node id to its value --
 * currentTerm, state (StateFollower, StatePreCandidate, StateCandidate,
 * StateLeader), votedFor ("0": none), commitIndex, logLen, logLastTerm --
 * and, for a message handler, the message received as the input: type,
 * from, to, term, and logIndex, logTerm (a vote request), prevLogIndex,
 * prevLogTerm, entries (how many), commitIndex (an append), commitIndex
 * (a heartbeat).  Other actions' input is {node}.  logLastTerm is followed
 * from the trace (raft.c) and refused where no trace shows it.  Its audit
 * domain, etcd's in this shape, draws the impossibility windows
 * (etcd-task-audit.c).
 */
#include "../raft/raft.h"
#include "etcd.h"

extern const struct audit_domain etcd_task_audit;

static void fold_task(struct fold_run *run)
{
	raft_fold_projection(run, &folder_etcd_task, RAFT_TASK);
}

static const char *const task_actor[] = { "to", "node", NULL };

const struct folder folder_etcd_task = {
	.name = "etcd-task",
	.summary = "etcd at SysMoBench's task granularity: state grouped by "
		   "variable, the message received as the input "
		   "(docs/task-projections.md)",
	.actions = raft_actions,
	.form = FORM_CANONICAL,
	.fold = fold_task,
	.audit = &etcd_task_audit,
	.actor = task_actor,
	.refines = &folder_etcd,
};
