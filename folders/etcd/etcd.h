/* SPDX-License-Identifier: MIT */
/*
 * etcd raft's folders, in the raft projection (folders/raft/raft.h): the
 * reference one, system etcd (etcd.c), which its live side folds with;
 * the one at SysMoBench's task granularity, system etcd-task
 * (etcd-task.c); the one with each log's terms, system etcd-entries
 * (etcd-entries.c).
 */
#ifndef FOLDERS_ETCD_ETCD_H
#define FOLDERS_ETCD_ETCD_H

#include "../../capture/system.h"

extern const struct folder folder_etcd, folder_etcd_task, folder_etcd_entries;

#endif
