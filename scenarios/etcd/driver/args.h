/* SPDX-License-Identifier: MIT */
/*
 * capture etcd's options of its own (live.c's table, one for the scenario
 * capture and its modes): the context the loop hands its hooks as
 * lc->opts (capture/live.h), what each mode reads.
 */
#ifndef SCENARIOS_ETCD_ARGS_H
#define SCENARIOS_ETCD_ARGS_H

#include "explore-opts.h"

struct etcd_args {
	const char *binary;     /* --binary FILE: the build to run */
	int live, explore, merge;   /* the modes */
	const char *seconds;    /* --seconds as given: each mode reads it */
	long clients;           /* --clients C (--live); 0: not given */
	int no_restart;         /* --no-restart (--live) */
	const char *nemesis;    /* --nemesis KIND,... (--live), checked by the cluster */
	struct explore_opts x;  /* --seed (also --live's), --budget, --shard, --unguided */
	unsigned given;         /* bit i: option i of the table was given */
};

#endif
