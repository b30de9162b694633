/* SPDX-License-Identifier: MIT */
/*
 * PGo's lock service (locksvc.c) and its projection at SysMoBench's task
 * granularity, system locksvc-task: the recorded variables {q, hasLock,
 * pc} (docs/task-projections.md).
 */
#ifndef FOLDERS_LOCKSVC_H
#define FOLDERS_LOCKSVC_H

#include "../../capture/system.h"

extern const struct folder folder_locksvc, folder_locksvc_task;

#endif
