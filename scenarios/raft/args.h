/* SPDX-License-Identifier: MIT */
/*
 * The options every raft's command shares (raft-system.c's table, and
 * etcd's, whose context holds more around them:
 * scenarios/etcd/driver/etcd-args.h): the context the loop hands its
 * hooks as lc->sel.opts (capture/live.h), what the eBPF driver and --explore
 * read.
 */
#ifndef SCENARIOS_RAFT_ARGS_H
#define SCENARIOS_RAFT_ARGS_H

#include "../../capture/parse-options.h"
#include "explore-opts.h"

struct raft_args {
	const char *binary;     /* --binary FILE: the build to run */
	int explore;            /* --explore */
	const char *seconds;    /* --seconds as given: each mode reads it */
	struct explore_opts x;  /* --seed, --budget, --shard, --unguided */
	const struct opt *table;    /* the rows filling it: which were given */
};

#define RAFT_ARGS_INIT { .x = { .seed = 1, .shard = 1, .shards = 1 } }

/* -s NAME's help, of every raft on etcd's scenario files. */
#define RAFT_SCENARIO_HELP "a scenario (election, 01-election, ...), a " \
	"scenario\nfile (a path with a /), or all"

/* @rows (to OPT_END) as the table filling @r, which keeps it (a copy). */
static inline struct opt *raft_args_rows(struct raft_args *r, const struct opt *rows)
{
	struct opt *t = opt_table_dup(rows);

	r->table = t;
	return t;
}

#endif
