/* SPDX-License-Identifier: MIT */
/*
 * The etcd system's live side (capture/live.h): the Go harness of
 * scenarios/etcd/ (a deterministic 3-node cluster on unmodified
 * go.etcd.io/raft/v3) and its drivers, the eBPF-probed run
 * (ebpf.c) and the with_tla trace (harness.c).
 */
#ifndef SCENARIOS_ETCD_HARNESS_H
#define SCENARIOS_ETCD_HARNESS_H

#include <cJSON.h>
#include "explore.h"

/* Seconds one scenario's harness may run. */
#define ETCD_HARNESS_TIMEOUT 120.0

/*
 * The harness binary: --binary FILE, else built (reproducibly) into
 * build/etcd/, with upstream's with_tla hook if @tla; made once.
 */
const char *etcd_harness(int tla);

/* Build the Go main in @src into @bin (both relative to capture's home). */
char *etcd_go_build(const char *src, const char *bin, const char *tags,
		    const char *what);
/* The raft package the harness runs (go.mod's module). */
#define ETCD_RAFT_PACKAGE "go.etcd.io/raft/v3"
/*
 * The with_tla harness built with "go build -cover" of itself and raft,
 * into build/etcd/harness-with_tla-cover: run under GOCOVERDIR, it writes
 * Go's coverage files (gocover.h).
 */
char *etcd_cover_harness(void);
/* The version @src's go.mod requires of @module (a JSON string). */
cJSON *etcd_go_mod_version(const char *src, const char *module);
/* Into @env: raft's version as @src's go.mod requires it, Go's, @bin's sha256. */
void etcd_describe_harness(cJSON *env, const char *src, const char *bin);

struct folder;
/*
 * Die with EXIT_CHECK_FAILED unless @counts (windows per action) hold
 * every target action of @f (a probe that never fired gives none).
 */
void etcd_require_actions(const struct folder *f, const cJSON *counts);

/* Die for the harness's exit @status (3: a bad scenario line). */
void etcd_harness_status(const char *bin, const char *scenario, int status);

extern const struct live_driver etcd_ebpf_driver, etcd_trace_driver;

/*
 * capture etcd's options of its own (harness.c's table, one for the
 * scenario capture and its modes): what each mode reads.
 */
struct etcd_args {
	const char *binary;     /* --binary FILE: the build to run */
	int live, explore, merge;   /* the modes */
	const char *seconds;    /* --seconds as given: each mode reads it */
	long clients;           /* --clients C (--live); 0: not given */
	int no_restart;         /* --no-restart (--live) */
	const char *nemesis;    /* --nemesis KIND,... (--live), checked by the cluster */
	struct explore_opts x;  /* --seed (also --live's), --budget, --shard, --unguided */
	unsigned given;         /* bit i: option i of the table was given */
};
extern struct etcd_args etcd_args;

struct ring_options;
/* The eBPF driver's --ring-bytes and --hold-ring, for --live (ebpf.c). */
const struct ring_options *etcd_ebpf_ring(void);

struct live_capture;
/* capture etcd --live (cluster.c): its exit code. */
int etcd_live(struct live_capture *lc);
/* capture etcd --explore, --merge CORPUS... (ebpf.c): its exit code. */
int etcd_explore_capture(struct live_capture *lc);

#endif
