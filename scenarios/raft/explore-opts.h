/* SPDX-License-Identifier: MIT */
/*
 * The options of a raft's --explore (explore.h), apart: the option
 * table's context (args.h) holds them without depending on the explorer.
 */
#ifndef SCENARIOS_RAFT_EXPLORE_OPTS_H
#define SCENARIOS_RAFT_EXPLORE_OPTS_H

struct explore_opts {
	unsigned long long seed;
	long budget;          /* scenarios to try; 0: until @seconds */
	double seconds;
	int shard, shards;    /* --shard K/N: this is shard K (1-based) of N */
	int unguided;         /* fresh random scenarios only (a baseline) */
};

#endif
