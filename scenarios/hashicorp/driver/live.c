// SPDX-License-Identifier: MIT
/*
 * The hashicorp system's live entry (capture/live.h): `capture hashicorp`
 * runs etcd's scenario files on a 3-node cluster of HashiCorp's raft
 * (github.com/hashicorp/raft, unmodified) driven by the Go harness of
 * scenarios/hashicorp/, under the probes of scenarios/hashicorp/raft.probes
 * (the raft eBPF driver, scenarios/raft/ebpf.c, over its struct
 * raft_harness), and folds the events into the raft projection
 * (folders/hashicorp/hashicorp.c; docs/hashicorp.md).  In driver/ because
 * scenarios/hashicorp/ is a Go package (Go refuses C files beside its
 * own).  Nothing in C knows hashicorp's types: they are the spec's.
 */
#include "../../raft/raft-system.h"

static const struct raft_harness hashicorp_raft_harness = {
	.name = "hashicorp",
	.src = "scenarios/hashicorp",
	.bin = "build/hashicorp/harness",
	.spec = "scenarios/hashicorp/raft.probes",
	.module = "github.com/hashicorp/raft",
	/*
	 * Guided by the windows' classes alone: Go's hit counts of
	 * hashicorp's raft follow the schedule (docs/hashicorp.md).
	 */
	.uncovered = 1,
};

static const char hashicorp_usage[] =
	RAFT_SYSTEM_USAGE("hashicorp")
	"Capture HashiCorp's raft (github.com/hashicorp/raft, unmodified) running\n"
	"a scenario of etcd's (scenarios/etcd/) on a 3-node cluster under eBPF\n"
	"uprobes (needs root, or CAP_BPF and CAP_PERFMON), and fold it into\n"
	"windows of etcd's projection (docs/hashicorp.md).\n";

static struct opt *hashicorp_table(void *opts)
{
	return raft_system_rows(opts, RAFT_BINARY_HELP("hashicorp"),
				RAFT_EXPLORE_HELP("docs/hashicorp.md"));
}

static const struct live_driver hashicorp_ebpf_driver =
	RAFT_EBPF_DRIVER(&hashicorp_raft_harness, raft_ebpf_table);

static const struct live_driver *const hashicorp_drivers[] = {
	&hashicorp_ebpf_driver,
	NULL,
};

const struct live_system live_hashicorp = RAFT_LIVE_SYSTEM(
	"run etcd's scenarios on HashiCorp's raft under eBPF probes, fold it",
	hashicorp_usage, hashicorp_table, hashicorp_drivers, "corpus/hashicorp");
