/* SPDX-License-Identifier: MIT */
/*
 * A raft's --explore, and etcd's --merge: coverage-guided search for
 * scenarios of the raft language (docs/etcd-explore.md).  Both write
 * scenario files NNN-explored into a directory, which the system's
 * capture then captures as it does any --scenarios directory.
 */
#ifndef SCENARIOS_RAFT_EXPLORE_H
#define SCENARIOS_RAFT_EXPLORE_H

#include "../../capture/parse-options.h"
#include "explore-opts.h"

/* --shard K/N (1 <= K <= N) into the struct explore_opts @o->value. */
int explore_shard_option(const struct opt *o, const char *arg, struct cap_err *err);

struct folder;
struct raft_harness;

/*
 * Explore raft @h with the with_tla harness @bin (etcd's; guided tries:
 * @cover_bin, the same built with Go coverage of @h's module; NULL when
 * unguided, or @h has no coverage signal: the classes alone guide), its
 * traces folded by @f (the system's folder) into classes of @f's audit
 * domain; write the kept scenarios, shrunk, into @dir (which exists and
 * is empty).  With @probed, @bin is @h's plain harness (@cover_bin
 * built with -covermode=atomic) and every try runs in one process of it
 * under @h's probes (served.h).
 */
void raft_explore(const struct explore_opts *x, const struct raft_harness *h,
		  const struct folder *f, const char *bin, const char *cover_bin,
		  int probed, const char *dir);

/*
 * The scenarios of corpora @corpora[0..n) (each CORPUS/scenarios), in
 * order, keeping those that add a class (of @f's audit domain), into
 * @dir (exists, empty); replayed on the with_tla harness @bin, or with
 * @probed on @h's plain one in one process under @h's probes, as
 * raft_explore()'s tries.
 */
void raft_merge(char *const *corpora, int n, const struct raft_harness *h,
		const struct folder *f, const char *bin, int probed,
		const char *dir);
/*
 * Dies (EXIT_USAGE) unless each of @corpora[0..n) is an explored corpus
 * (has CORPUS/scenarios/): called before any work, so that no harness is
 * built or started, and no engine thread attaching meets the exit.
 */
void raft_merge_check(char *const *corpora, int n);

#endif
