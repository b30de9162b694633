/* SPDX-License-Identifier: MIT */
/* The guided tries' prefixes (explore.c): mutations of kept scenarios. */
#ifndef SCENARIOS_RAFT_MUTATE_H
#define SCENARIOS_RAFT_MUTATE_H

#include "explorer.h"
#include "tries.h"

/*
 * A guided try's prefix, drawn from @r and @s: a kept scenario's first
 * steps (half the time all of them), the same steps under another kept
 * one's header (raft's configuration decides which classes a state leads
 * to; a fresh try draws it anew), a splice of two kept scenarios, or,
 * one time in three, a kept scenario's first steps then a stale node move.
 * Writes it to @t's parent file; returns its steps.
 */
size_t mutate(struct explorer *e, struct slot *t, unsigned long long r,
	      unsigned long long s);

#endif
