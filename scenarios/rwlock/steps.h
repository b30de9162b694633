/* SPDX-License-Identifier: MIT */
/*
 * rwlock scenarios: data files scenarios/rwlock/NN-NAME in the lock
 * scenarios' step language (scenarios/actor-steps.h), one "ACTOR OP" a
 * line, OP one of read_lock, read_trylock, read_unlock, write_lock,
 * write_trylock, write_unlock (the kernel's calls of those names on one
 * rwlock_t).  The files say what the actors do, never what the lock does.
 */
#ifndef SCENARIOS_RWLOCK_STEPS_H
#define SCENARIOS_RWLOCK_STEPS_H

#include <stddef.h>
#include "../actor-steps.h"

/* The module's op letters, by op (the words: folders/rwlock/rwlock-ops.h). */
extern const char rwlock_op_letters[];

struct rwlock_scenario {
	char *name;         /* "contention" */
	char *run;          /* "01-contention" */
	char *path;
	struct actor_step *steps;
	size_t nsteps;
};

/* Parse the file @path (dies with EXIT_BAD_INPUT naming file:line). */
void rwlock_scenario_load(struct rwlock_scenario *s, const char *name,
			  const char *run, const char *path);
void rwlock_scenario_free(struct rwlock_scenario *s);

#endif
