/* SPDX-License-Identifier: MIT */
/*
 * The options every raft's command shares (raft-system.c's table, and
 * etcd's, whose context holds more around them:
 * scenarios/etcd/driver/etcd-args.h): the context the loop hands its
 * hooks as lc->opts (capture/live.h), what the eBPF driver and --explore
 * read.
 */
#ifndef SCENARIOS_RAFT_ARGS_H
#define SCENARIOS_RAFT_ARGS_H

#include "explore-opts.h"

struct raft_args {
	const char *binary;     /* --binary FILE: the build to run */
	int explore;            /* --explore */
	const char *seconds;    /* --seconds as given: each mode reads it */
	struct explore_opts x;  /* --seed, --budget, --shard, --unguided */
	unsigned given;         /* bit i: option i of the table was given */
};

#endif
