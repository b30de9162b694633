/* SPDX-License-Identifier: MIT */
/* The shrinking of the scenarios an exploration kept (explore.c). */
#ifndef SCENARIOS_RAFT_SHRINK_H
#define SCENARIOS_RAFT_SHRINK_H

#include "explorer.h"
#include "tries.h"

/*
 * Shrink the kept scenarios, BATCH at a time, each one's trials in turn:
 * a scenario's shrinking depends only on its own trials.
 */
void shrink_all(struct explorer *e, struct slot *slots);

#endif
