/* SPDX-License-Identifier: MIT */
/*
 * One exploration's state (explore.c), which its coverage signal
 * (coverage.c), mutations (mutate.c) and shrinking (shrink.c) read.
 */
#ifndef SCENARIOS_RAFT_EXPLORER_H
#define SCENARIOS_RAFT_EXPLORER_H

#include "classes.h"
#include "gocover.h"
#include "scenario-lines.h"

struct explore_opts;
struct raft_harness;

struct explorer {
	const struct explore_opts *x;
	const struct raft_harness *h;  /* the raft explored: its spec (served.h) */
	const char *package;     /* its Go package (h's module): the units that count */
	const char *bin, *work;
	unsigned long long rng;
	struct classes covered;
	struct scenario *kept;     /* the parents among them too */
	size_t nkept, nparents;
	long tried;
	const struct folder *folder;   /* the system's: its checks, its audit */
	struct classes domain;   /* its audit's cells not declared impossible */
	double start;
	const char *cover_bin;   /* guided: the harness built with -cover */
	struct gocover_pkg raft; /* its raft package, once a try wrote it */
	unsigned char *units;    /* per raft unit, the buckets of its hit counts */
	size_t nunits, npairs;   /* units some try ran; (unit, bucket) pairs */
	struct served *served;   /* --via ebpf: the tries' probed harness */
};

/*
 * The step map of a try's trace, @steps: the with_tla harness writes one;
 * the probed harness counts no events, so a check names the trace's line.
 */
static inline const char *try_step_map(const struct explorer *e,
				       const char *steps)
{
	return e->served ? NULL : steps;
}

#endif
