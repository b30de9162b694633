// SPDX-License-Identifier: MIT
/* The command of a raft beside etcd's (raft-system.h). */
#include "../../../capture/err.h"
#include "explore.h"
#include "raft-system.h"

enum { O_BINARY = 0x1400, O_EXPLORE = 0x1402, O_SEED, O_BUDGET, O_SECONDS,
       O_SHARD, O_UNGUIDED };

const struct option raft_system_options[] = {
	{ "binary", required_argument, NULL, O_BINARY },
	{ "explore", no_argument, NULL, O_EXPLORE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "budget", required_argument, NULL, O_BUDGET },
	{ "seconds", required_argument, NULL, O_SECONDS },
	{ "shard", required_argument, NULL, O_SHARD },
	{ "unguided", no_argument, NULL, O_UNGUIDED },
	{ 0 }
};

const struct etcd_args raft_system_defaults = {
	.x = { .seed = 1, .shard = 1, .shards = 1 },
};

void raft_system_option(void *opts, int opt, const char *arg)
{
	struct etcd_args *e = opts;

	if (opt != O_BINARY && opt != O_EXPLORE)
		e->given = 1;   /* an option of --explore's */
	if (opt == O_BINARY)
		e->binary = arg;
	else if (opt == O_EXPLORE)
		e->explore = 1;
	else if (opt == O_SEED)
		e->x.seed = option_unsigned(arg, "--seed");
	else if (opt == O_BUDGET)
		e->x.budget = option_number(arg, "--budget", 1, 1000000000);
	else if (opt == O_SECONDS)
		e->seconds = arg;
	else if (opt == O_SHARD)
		explore_parse_shard(&e->x, arg);
	else
		e->x.unguided = 1;
}

/*
 * --explore runs instead of a scenario capture: no --scenario,
 * --scenarios or --binary (it builds the harness it serves); its own
 * options only with it.
 */
int raft_system_instead(struct live_capture *lc, struct cap_err *err)
{
	const struct etcd_args *e = lc->opts;

	if (!e->explore && e->given)
		return cap_fail(err, EXIT_USAGE, "--seed, --budget, --seconds, "
				"--shard and --unguided go with --explore");
	if (!e->explore)
		return LIVE_CAPTURE;
	if (e->binary)
		return cap_fail(err, EXIT_USAGE, "--binary does not go with --explore");
	if (lc->scenario || lc->scenarios)
		return live_misuse(err);
	return raft_explore_capture(lc, raft_driver_harness(lc), 0, err);
}

void raft_system_describe(struct live_capture *lc, cJSON *m)
{
	raft_live_describe(lc, m, raft_driver_harness(lc));
}
