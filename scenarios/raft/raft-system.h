/* SPDX-License-Identifier: MIT */
/*
 * The command of a raft folded into the raft projection on etcd's scenario
 * files (capture hashicorp, capture raftrs; raft-system.c): its options
 * (a scenario capture's --binary, --explore's --seed, --budget,
 * --seconds, --shard, --unguided) and the live system over the one eBPF
 * driver of its struct raft_harness (ebpf.h); and the capture of
 * --explore, which capture etcd's --explore and --merge run too.  Each
 * system's entry keeps only what names its harness, build, spec, usage
 * and help.
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

/* The help of --binary, of system @NAME. */
#define RAFT_BINARY_HELP(NAME) \
	"run this build of scenarios/" NAME " instead of\nbuilding one"
/* The help of --explore, @DOC the page where its guidance is said. */
#define RAFT_EXPLORE_HELP(DOC) \
	"search for scenarios that add audit classes, as\ncapture etcd " \
	"--explore does (" DOC "):\nthe tries drawn from the cluster's state, " \
	"run in\none harness under the probes; then capture them"

/*
 * --explore (or etcd's --merge CORPUS...) of raft @h: its options checked
 * (lc->sel.opts a struct raft_args), the scenarios found into a stage
 * (explore.h: with an eBPF driver, @h's harness served under @h's
 * probes), then captured as "--scenarios DIR/scenarios --scenario all".
 */
int raft_explore_capture(struct live_capture *lc, const struct raft_harness *h,
			 int merge, struct cap_err *err);

extern const struct raft_args raft_system_defaults;
/* The system's rows, filling @e: --binary, --explore and its options. */
struct opt *raft_system_rows(struct raft_args *e, const char *binary_help,
			     const char *explore_help);
/* --explore instead of a scenario capture, of the driver's harness. */
int raft_system_instead(struct live_capture *lc, struct cap_err *err);
void raft_system_describe(struct live_capture *lc, cJSON *m);

/*
 * The live system of @SUMMARY and @USAGE, its options' rows @TABLE
 * (raft_system_rows()), over the eBPF drivers @DRIVERS (one:
 * RAFT_EBPF_DRIVER of the system's harness), its corpora in @DIR (a
 * string literal) by default.
 */
#define RAFT_LIVE_SYSTEM(SUMMARY, USAGE, TABLE, DRIVERS, DIR) { \
	.summary = (SUMMARY), .usage = (USAGE), \
	.scenario_help = RAFT_SCENARIO_HELP, \
	.scenarios_help = "take the scenario files from DIR (default:\n" \
			  "scenarios/etcd, etcd's reference scenarios)", \
	.dir_help = DIR, .table = (TABLE), \
	.opts = { sizeof(struct raft_args), &raft_system_defaults }, \
	.driver_row = LIVE_DRIVER_ROW(0, "via", "ebpf", "eBPF uprobes read the " \
				      "harness (the one driver)"), \
	.drivers = (DRIVERS), .raw_ext = "ndjson", .default_dir = (DIR), \
	.instead = raft_system_instead, .describe = raft_system_describe, \
	.finish = raft_live_finish, .release = raft_live_release, }

#endif
