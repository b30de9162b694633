/* SPDX-License-Identifier: MIT */
/*
 * The etcd harness: the Go mains of scenarios/etcd/ (a deterministic
 * 3-node cluster on unmodified go.etcd.io/raft/v3) and scenarios/etcd/live/
 * built reproducibly, their provenance, the checks every etcd corpus
 * passes, and the with_tla driver (harness.c).  The bottom of etcd's live
 * side: the drivers (ebpf.h), --live (cluster.h) and the entry (live.c)
 * are above it.
 */
#ifndef SCENARIOS_ETCD_HARNESS_H
#define SCENARIOS_ETCD_HARNESS_H

#include <cJSON.h>

struct live_capture;
struct folder;

/* Seconds one scenario's harness may run. */
#define ETCD_HARNESS_TIMEOUT 120.0

/*
 * The harness --via trace runs: --binary FILE, else built (reproducibly)
 * into build/etcd/ with upstream's with_tla hook; made once, kept as
 * lc->data (the etcd system's release() frees it).  The eBPF driver's
 * harness is its own (ebpf.c).
 */
const char *etcd_harness(struct live_capture *lc);

/* Build the Go main in @src into @bin (both relative to capture's home). */
char *etcd_go_build(const char *src, const char *bin, const char *tags,
		    const char *what);
/*
 * The with_tla harness built with "go build -cover" of itself and raft,
 * into build/etcd/harness-with_tla-cover (run under GOCOVERDIR, it
 * writes Go's coverage files, gocover.h).
 */
char *etcd_cover_harness(void);
/*
 * A raft's plain harness, the Go main in @src, built with "go build
 * -cover" of itself and raft @module, atomic counters, into @bin +
 * "-cover" (its -serve mode clears them between tries); @name's in the
 * progress (a struct raft_harness's fields, ebpf.h).
 */
char *raft_cover_harness(const char *src, const char *bin, const char *module,
			 const char *name);
/* The version @src's go.mod requires of @module (a JSON string). */
cJSON *etcd_go_mod_version(const char *src, const char *module);
/*
 * The version pinned in @src/@file (relative to capture's home): what
 * follows @want, where @want starts a word, up to a byte of @stop; exit 5
 * naming the file when it cannot be read, or with @missing when it holds
 * no @want.
 */
cJSON *etcd_pinned_version(const char *src, const char *file,
			   const char *want, const char *stop, const char *missing);
/* The first line @argv prints (a toolchain's version), a JSON string. */
cJSON *etcd_tool_version(const char *const argv[]);
/* Into @env: raft @module's version as @src's go.mod requires it, Go's, @bin's sha256. */
void etcd_describe_harness(cJSON *env, const char *src, const char *module,
			   const char *bin);

/*
 * Die with EXIT_CHECK_FAILED unless @counts (windows per action) hold
 * every target action of @f (a probe that never fired gives none).
 */
void etcd_require_actions(const struct folder *f, const cJSON *counts);

/* Die for the harness's exit @status (3: a bad scenario line). */
void etcd_harness_status(const char *bin, const char *scenario, int status);

extern const struct live_driver etcd_trace_driver;

#endif
