/* SPDX-License-Identifier: MIT */
/*
 * etcd raft's folder (etcd.c), which its live side folds with, and its
 * projections: the reference one, system etcd, {"nodes": {id: {role,
 * term, vote, commit, log}}}, and the one at SysMoBench's task
 * granularity, system etcd-task (etcd-task.c): the same windows grouped
 * by variable, with the received message as the input.
 */
#ifndef FOLDERS_ETCD_H
#define FOLDERS_ETCD_H

#include "../../capture/system.h"

struct fold_run;

extern const struct folder folder_etcd, folder_etcd_task;
/* Both projections' target actions. */
extern const char *const etcd_actions[];

/* Fold @run as system @folder; @task: etcd-task's projection. */
void etcd_fold_projection(struct fold_run *run, const struct folder *folder,
			  int task);

#endif
