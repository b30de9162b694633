/* SPDX-License-Identifier: MIT */
/*
 * capture etcd's options (live.c's table, one for the scenario capture
 * and its modes): a raft's (scenarios/raft/args.h), first, so that what reads a
 * struct raft_args reads them, and etcd's own modes' around them.
 */
#ifndef SCENARIOS_ETCD_ETCD_ARGS_H
#define SCENARIOS_ETCD_ETCD_ARGS_H

#include "../../raft/args.h"

struct etcd_args {
	struct raft_args raft;  /* --binary, --explore, --seconds, --seed (also
				 * --live's), --budget, --shard, --unguided */
	int live, merge;        /* the other modes */
	long clients;           /* --clients C (--live); 0: not given */
	int no_restart;         /* --no-restart (--live) */
	const char *nemesis;    /* --nemesis KIND,... (--live), checked by the cluster */
};

#define ETCD_ARGS_INIT { .raft = RAFT_ARGS_INIT }

#endif
