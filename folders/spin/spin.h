/* SPDX-License-Identifier: MIT */
/*
 * The spin folder's projections (spin.c): the reference one, system
 * spin; the extended one, system spin-spinning (spin-spinning.c), whose
 * state also shows the actors spinning in lock(); and the one at
 * SysMoBench's task granularity, system spin-task (spin-task.c): the
 * kernel's events as actions over {lockState, pc}.
 */
#ifndef FOLDERS_SPIN_H
#define FOLDERS_SPIN_H

#include "../../capture/fold.h"

extern const struct folder folder_spin, folder_spin_spinning, folder_spin_task;
/* Both projections' actions: AcquireLock, ReleaseLock. */
extern const char *const spin_actions[];
/* Both projections' actor: the data's thread. */
extern const char *const spin_actor[];
/* lockHolder is null while the lock is free (the ITF types of the state) */
extern const struct itf_var spin_itf[];

enum spin_projection { SPIN_REFERENCE, SPIN_SPINNING, SPIN_TASK };

/* spin-task: the threads its pc is over (capture spin's two actors) */
#define SPIN_TASK_THREADS 2

/* Fold @run as system @f, the projection @proj. */
void spin_fold(struct fold_run *run, const struct folder *f,
	       enum spin_projection proj);

#endif
