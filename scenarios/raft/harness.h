/* SPDX-License-Identifier: MIT */
/*
 * A raft harness built and described (harness.c): a Go main built
 * reproducibly (with coverage for the exploration), the versions a
 * harness was built from, the status of its run, the actions every
 * corpus of --scenario all holds.  The bottom of the raft drivers: the
 * eBPF driver (ebpf.h), etcd's with_tla harness
 * (scenarios/etcd/driver/etcd-harness.h) and etcd's --live
 * (scenarios/etcd/driver/cluster.h) are above it.
 */
#ifndef SCENARIOS_RAFT_HARNESS_H
#define SCENARIOS_RAFT_HARNESS_H

#include <cJSON.h>

struct folder;

/* Seconds one scenario's harness may run. */
#define RAFT_HARNESS_TIMEOUT 120.0

/*
 * Build the Go main in @src into @bin (both relative to capture's home)
 * with build tags @tags and @cover's coverage flags (NULL: none), saying
 * @what is built.
 */
char *raft_go_build(const char *src, const char *bin, const char *tags,
		    const char *const cover[3], const char *what);
/*
 * A raft's plain harness, the Go main in @src, built with "go build
 * -cover" of itself and raft @module, atomic counters, into @bin +
 * "-cover" (its -serve mode clears them between tries); @name's in the
 * progress (a struct raft_harness's fields, ebpf.h).
 */
char *raft_cover_harness(const char *src, const char *bin, const char *module,
			 const char *name);
/* The version @src's go.mod requires of @module (a JSON string). */
cJSON *raft_go_mod_version(const char *src, const char *module);
/*
 * The version pinned in @src/@file (relative to capture's home): what
 * follows @want, where @want starts a word, up to a byte of @stop; exit 5
 * naming the file when it cannot be read, or with @missing when it holds
 * no @want.
 */
cJSON *raft_pinned_version(const char *src, const char *file,
			   const char *want, const char *stop, const char *missing);
/* The first line @argv prints (a toolchain's version), a JSON string. */
cJSON *raft_tool_version(const char *const argv[]);
/* Into @env: raft @module's version as @src's go.mod requires it, Go's, @bin's sha256. */
void raft_describe_harness(cJSON *env, const char *src, const char *module,
			   const char *bin);

/*
 * Die with EXIT_CHECK_FAILED unless @counts (windows per action) hold
 * every target action of @f (a probe that never fired gives none).
 */
void raft_require_actions(const struct folder *f, const cJSON *counts);

/* Die for the harness's exit @status (3: a bad scenario line). */
void raft_harness_status(const char *bin, const char *scenario, int status);

#endif
