// SPDX-License-Identifier: MIT
/*
 * The raftrs system's live entry (capture/live.h): `capture raftrs` runs
 * etcd's scenario files on a 3-node cluster of TiKV's raft-rs (crate raft
 * 0.7.0, unmodified) driven by the Rust harness of scenarios/raftrs/
 * (built by cargo), under the probes of scenarios/raftrs/raft.probes
 * (the raft eBPF driver over its struct raft_harness, and the raft
 * explorer: --explore), and folds the events into the raft projection
 * (folders/raftrs/raftrs.c; docs/raftrs.md).
 * Nothing in C knows raft-rs's types: they are the spec's.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/home.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../raft/harness.h"
#include "../raft/raft-system.h"

/* A Rust tool: on PATH, else where rustup puts it (~/.cargo/bin). */
static char *rust_tool(const char *name)
{
	const char *home = getenv("HOME");
	char *path;

	if (have_program(name))
		return xstrdup(name);
	path = xasprintf("%s/.cargo/bin/%s", home ? home : "", name);
	if (home && file_exists(path))
		return path;
	die(EXIT_ENV_MISSING, "no Rust toolchain (%s on PATH or in ~/.cargo/bin)", name);
}

/*
 * cargo build --locked of the harness package @h->src into build/raftrs/
 * (its dev profile: no optimization, full DWARF); the crates are fetched
 * into cargo's own cache (CARGO_HOME, ~/.cargo), as Go's modules are into
 * Go's, and cargo rebuilds only what changed.
 */
static char *raftrs_build(const struct raft_harness *h)
{
	char *cargo = rust_tool("cargo");
	char *manifest = xasprintf("%s/%s/Cargo.toml", capture_home(), h->src);
	char *target = xasprintf("%s/build/raftrs", capture_home());
	const char *argv[] = { cargo, "build", "--locked", "--quiet", "--manifest-path",
			       manifest, "--target-dir", target, NULL };

	progress("building the %s harness", h->name);
	proc_must(EXIT_ENV_MISSING, argv, NULL);
	free(target);
	free(manifest);
	free(cargo);
	return xasprintf("%s/%s", capture_home(), h->bin);
}

/* The version of crate @h->module that @h->src's Cargo.lock pins. */
static cJSON *cargo_lock_version(const struct raft_harness *h)
{
	char *want = xasprintf("name = \"%s\"\nversion = \"", h->module);
	char *missing = xasprintf("no package %s", h->module);
	cJSON *v = raft_pinned_version(h->src, "Cargo.lock", want, "\"", missing);

	free(missing);
	free(want);
	return v;
}

/* The manifest's raft_module, raft_version, rustc_version, harness_sha256. */
static void raftrs_describe_harness(cJSON *env, const struct raft_harness *h,
				    const char *bin)
{
	char *rustc = rust_tool("rustc");
	const char *argv[] = { rustc, "--version", NULL };
	char hex[65];

	json_add(env, "raft_module", json_str(h->module));
	json_add(env, "raft_version", cargo_lock_version(h));
	json_add(env, "rustc_version", raft_tool_version(argv));
	if (sha256_file(bin, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", bin);
	json_add(env, "harness_sha256", json_str(hex));
	free(rustc);
}

static const struct raft_harness raftrs_raft_harness = {
	.name = "raftrs",
	.src = "scenarios/raftrs",
	.bin = "build/raftrs/debug/harness",
	.spec = "scenarios/raftrs/raft.probes",
	.module = "raft",
	.start = "harness::scenario_start",
	.try_start = "harness::serve::try_start",
	.try_end = "harness::serve::try_end",
	.build = raftrs_build,
	.describe = raftrs_describe_harness,
	.uncovered = 1,   /* no coverage of Rust here: docs/raftrs.md */
};

static const char raftrs_usage[] =
	RAFT_SYSTEM_USAGE("raftrs")
	"Capture TiKV's raft-rs (crate raft 0.7.0, unmodified) running a scenario\n"
	"of etcd's (scenarios/etcd/) on a 3-node cluster under eBPF uprobes (needs\n"
	"root, or CAP_BPF and CAP_PERFMON), and fold it into windows of etcd's\n"
	"projection (docs/raftrs.md).\n";

static struct opt *raftrs_table(void *opts)
{
	return raft_system_rows(opts, RAFT_BINARY_HELP("raftrs"),
				RAFT_EXPLORE_HELP("docs/raftrs.md"));
}

static const struct live_driver raftrs_ebpf_driver =
	RAFT_EBPF_DRIVER(&raftrs_raft_harness, raft_ebpf_table);

static const struct live_driver *const raftrs_drivers[] = {
	&raftrs_ebpf_driver,
	NULL,
};

const struct live_system live_raftrs = RAFT_LIVE_SYSTEM(
	"run etcd's scenarios on TiKV's raft-rs under eBPF probes, fold it",
	raftrs_usage, raftrs_table, raftrs_drivers, "corpus/raftrs");
