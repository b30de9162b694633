/* SPDX-License-Identifier: MIT */
/*
 * Go's statement coverage of raft as the exploration's second signal: the
 * (raft unit, AFL hit-count bucket) pairs of a try (gocover.h reads the files).
 */
#ifndef SCENARIOS_RAFT_COVERAGE_H
#define SCENARIOS_RAFT_COVERAGE_H

#include "explorer.h"

/*
 * The pairs of the explored raft's package (its harness's module: its
 * units count) the try run under GOCOVERDIR @dir ran that no try ran before:
 * how many, added to those.  Its counter file is removed (the next try
 * writes its own); the meta-data file stays, read once.
 */
size_t try_units(struct explorer *e, const char *dir);

#endif
