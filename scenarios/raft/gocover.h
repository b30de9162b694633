/* SPDX-License-Identifier: MIT */
/*
 * Go's own statement coverage as the exploration's second signal: a
 * harness built with "go build -cover" writes, into the GOCOVERDIR it is
 * given, a meta-data file (covmeta.HASH: the packages, their functions and
 * coverable units) and per run a counter file (covcounters.HASH.PID.TIME:
 * the counters of every function that ran).  The formats are Go's
 * (internal/coverage/defs.go, version 1 of both); no library reads them,
 * so this is a small strict reader that refuses any other magic, version,
 * counter flavor or a length that does not add up.
 */
#ifndef SCENARIOS_RAFT_GOCOVER_H
#define SCENARIOS_RAFT_GOCOVER_H

#include <stdint.h>
#include <stddef.h>
#include "../../capture/err.h"

/* One package of a meta-data file: its units numbered 0..units-1. */
struct gocover_pkg {
	unsigned char hash[16];   /* the meta-data file's, named by counter files */
	uint32_t index;           /* the package's index in the file */
	uint32_t nfuncs;
	uint32_t *first;          /* function f's units: first[f] .. first[f + 1] - 1 */
	size_t units;
};

/*
 * Read the meta-data file @path's package @pkgpath into @p; -1 with @err
 * (EXIT_BAD_INPUT naming the file and byte) if the file is not a version 1
 * meta-data file or lacks the package.
 */
int gocover_meta(const char *path, const char *pkgpath, struct gocover_pkg *p,
		 struct cap_err *err);
void gocover_pkg_free(struct gocover_pkg *p);

/*
 * Set @counts[u] (p->units of them, the caller's) to the counter of each
 * unit u of @p in counter file @path (in "set" mode 1 for a unit that ran,
 * in "count" mode how many times; the caller zeroes those of functions
 * that did not run); -1 with @err if it is no version 1
 * counter file of one run of @p's binary.
 */
int gocover_counters(const struct gocover_pkg *p, const char *path,
		     uint32_t *counts, struct cap_err *err);

#endif
