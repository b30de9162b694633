/* SPDX-License-Identifier: MIT */
/*
 * The operations of the rwlock guest, as the trace decoder
 * (rwlock-ftrace.c), the folder (rwlock.c), its audit domain
 * (rwlock-audit.c) and the scenario files' steps
 * (scenarios/rwlock/steps.c) name them.
 */
#ifndef FOLDERS_RWLOCK_OPS_H
#define FOLDERS_RWLOCK_OPS_H

/* scenarios/rwlock/module/rwlock.c's enum op, by value. */
enum rwlock_op { READ_LOCK, READ_TRYLOCK, READ_UNLOCK, WRITE_LOCK,
		 WRITE_TRYLOCK, WRITE_UNLOCK, N_OPS };

/* The ops' words, NULL-ended, by op: the scenario files' and the stream's. */
extern const char *const rwlock_op_names[];
/*
 * The windows' actions, by op, NULL-ended (struct folder's): also the
 * order of the audit domain's columns.
 */
extern const char *const rwlock_actions[];

#endif
