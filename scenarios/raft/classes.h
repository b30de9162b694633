/* SPDX-License-Identifier: MIT */
/*
 * What the exploration counts (explore.c): the classes of the explored
 * system's audit domain (ROW / COL cells, capture audit's) a harness
 * run's windows fall in, found by folding its trace with every check of
 * the system's folder.
 */
#ifndef SCENARIOS_RAFT_CLASSES_H
#define SCENARIOS_RAFT_CLASSES_H

#include <stddef.h>

struct audit_domain;
struct folder;

struct classes {
	char **v;
	size_t n;
};

/* @key is in @c. */
int classes_has(const struct classes *c, const char *key);
/* Add @key to @c unless it is there. */
void classes_add(struct classes *c, const char *key);
void classes_free(struct classes *c);
/*
 * The classes of @domain (cells of @f's audit domain) the trace the
 * harness wrote for @scenario (its step map @steps) shows, folded by @f;
 * a failed check dies naming the scenario's line and keeps the scenario
 * file as a finding.
 */
struct classes trace_classes(const struct folder *f,
			     const struct classes *domain,
			     const char *trace, const char *steps,
			     const char *scenario);
/* @audit's cells as "ROW / COL", but those it declares impossible. */
struct classes reachable_domain(const struct audit_domain *audit);

#endif
