/* SPDX-License-Identifier: MIT */
/*
 * The spin folder's two projections (spin.c): the reference one, system
 * spin, and the extended one, system spin-spinning (spin-spinning.c),
 * whose state also shows the actors spinning in lock().
 */
#ifndef FOLDERS_SPIN_H
#define FOLDERS_SPIN_H

#include "../../capture/fold.h"

extern const struct folder folder_spin, folder_spin_spinning;
/* Both projections' actions: AcquireLock, ReleaseLock. */
extern const char *const spin_actions[];
/* Both projections' actor: the data's thread. */
extern const char *const spin_actor[];
/* lockHolder is null while the lock is free (the ITF types of the state) */
extern const struct itf_var spin_itf[];

/* Fold @run as system @f; @extended: the state has "spinning". */
void spin_fold(struct fold_run *run, const struct folder *f, int extended);

#endif
