/* SPDX-License-Identifier: MIT */
/*
 * Spin scenarios: data files scenarios/spin/NN-NAME, one step a line.
 *
 *	# comment
 *	0 lock
 *	1 try
 *	0 release
 *
 * ACTOR is 0 or 1, OP is lock (spin_lock), try (spin_trylock) or release
 * (spin_unlock).  The numeric prefix NN orders the scenarios for "all" and
 * names the window file (NN-NAME.ndjson); the scenario's name is NAME
 * (capture/scenario.h finds and selects the files).
 * The files say what the actors do, never what the lock does: the windows
 * come from what the kernel reports.  Shared by the Linux driver and the
 * Asterinas test generator.
 */
#ifndef SCENARIOS_SPIN_STEPS_H
#define SCENARIOS_SPIN_STEPS_H

#include <stddef.h>
#include "../actor-steps.h"

/* A step's op (struct actor_step's), the index of its word. */
enum spin_op { SPIN_LOCK, SPIN_TRY, SPIN_RELEASE };

struct spin_scenario {
	char *name;         /* "contention" */
	char *path;         /* ".../scenarios/spin/01-contention" */
	int index;          /* 1 for 01-contention */
	struct actor_step *steps;
	size_t nsteps;
	int generated;      /* of the domain set: no file (domain.h) */
};

/* Words for the ops in scenario files ("lock", "try", "release"), NULL-ended. */
extern const char *const spin_op_names[];

/*
 * Parse the scenario file @path into @s.  A malformed line dies with
 * EXIT_BAD_INPUT naming file:line; a file name without an NN- prefix or a
 * file without steps dies with EXIT_BAD_INPUT too.
 */
void spin_scenario_load(const char *path, struct spin_scenario *s);

void spin_scenario_free(struct spin_scenario *s);
void spin_scenarios_free(struct spin_scenario *v, size_t n);

#endif
