/* SPDX-License-Identifier: MIT */
/*
 * The command of a raft folded into the raft projection on etcd's scenario
 * files (capture hashicorp, capture raftrs; raft-system.c): its options
 * (a scenario capture's --binary, --explore's --seed, --budget,
 * --seconds, --shard, --unguided), their help, and the live system over
 * the one eBPF driver of its struct raft_harness (ebpf.h); and the
 * capture of --explore, which capture etcd's --explore and --merge run
 * too.  Each system's entry keeps only what names its harness, build,
 * spec and usage.
 */
#ifndef SCENARIOS_RAFT_RAFT_SYSTEM_H
#define SCENARIOS_RAFT_RAFT_SYSTEM_H

#include "../../capture/live.h"
#include "../../capture/options.h"
#include "args.h"
#include "ebpf.h"

/* The usage's first lines, of system @NAME. */
#define RAFT_SYSTEM_USAGE(NAME) \
	"usage: capture " NAME " --scenario NAME|all [options]\n" \
	"       capture " NAME " --explore [--seed N] [--budget N|--seconds S] [--shard K/N]\n" \
	"                        [--unguided] [options]\n\n"

/*
 * The usage's options after its description: @NAME the system, @DOC its
 * page (where --explore's guidance is said), @DIR the default corpus.
 */
#define RAFT_SYSTEM_OPTIONS_HELP(NAME, DOC, DIR) \
	"options:\n" \
	"  -s, --scenario NAME  a scenario (election, 01-election, ...), a scenario\n" \
	"                       file (a path with a /), or all\n" \
	"      --scenarios DIR  take the scenario files from DIR (default:\n" \
	"                       scenarios/etcd, etcd's reference scenarios)\n" \
	"      --binary FILE    run this build of scenarios/" NAME " instead of\n" \
	"                       building one\n" \
	RING_OPTIONS_HELP("the harness") \
	"      --resolve FUNC   print where FUNC would be probed, and exit\n" \
	"      --explore        search for scenarios that add audit classes, as\n" \
	"                       capture etcd --explore does (" DOC "):\n" \
	"                       the tries drawn from the cluster's state, run in\n" \
	"                       one harness under the probes; then capture them\n" \
	"      --seed N         the search's seed (default 1)\n" \
	"      --budget N       try N scenarios (default 200)\n" \
	"      --seconds S      try for S seconds instead\n" \
	"      --shard K/N      shard K of N searches of one seed\n" \
	"      --unguided       fresh random scenarios only (a baseline)\n" \
	OUTPUT_OPTIONS_HELP(DIR) \
	"  -h, --help           this text\n"

/*
 * --explore (or etcd's --merge CORPUS...) of raft @h: its options checked
 * (lc->opts a struct raft_args), the scenarios found into a stage
 * (explore.h: with an eBPF driver, @h's harness served under @h's
 * probes), then captured as "--scenarios DIR/scenarios --scenario all".
 */
int raft_explore_capture(struct live_capture *lc, const struct raft_harness *h,
			 int merge, struct cap_err *err);

extern const struct option raft_system_options[];
extern const struct raft_args raft_system_defaults;
void raft_system_option(void *opts, int opt, const char *arg);
/* --explore instead of a scenario capture, of the driver's harness. */
int raft_system_instead(struct live_capture *lc, struct cap_err *err);
void raft_system_describe(struct live_capture *lc, cJSON *m);

/*
 * The live system of @SUMMARY and @USAGE over the eBPF drivers @DRIVERS
 * (one: RAFT_EBPF_DRIVER of the system's harness), --via @VIA (an option
 * value apart from raft_system_options' 0x1400 and 0x1402 up), its
 * corpora in @DIR by default.
 */
#define RAFT_LIVE_SYSTEM(SUMMARY, USAGE, VIA, DRIVERS, DIR) { \
	.summary = (SUMMARY), .usage = (USAGE), \
	.options = raft_system_options, \
	.opts = { sizeof(struct raft_args), &raft_system_defaults }, \
	.option = raft_system_option, \
	.driver_option = { "via", required_argument, NULL, (VIA) }, \
	.drivers = (DRIVERS), .raw_ext = "ndjson", .default_dir = (DIR), \
	.instead = raft_system_instead, .describe = raft_system_describe, \
	.finish = raft_live_finish, .release = raft_live_release, }

#endif
