/* SPDX-License-Identifier: MIT */
/*
 * The systems capture knows (docs/architecture.md): one table, filled in
 * capture/cli/systems.c, one line per system.  A system is its folder (its
 * semantics: actions, state, the fold of one run) and, when it is captured
 * live, its live entry (capture/live.h) and scenario directory.
 */
#ifndef CAPTURE_SYSTEM_H
#define CAPTURE_SYSTEM_H

#include "windows.h"

struct fold_run;
struct audit_domain;
struct live_system;

/* A system's semantics: the folder interface, capture/fold.h. */
struct folder {
	const char *name;
	const char *summary;
	const char *const *actions;     /* target actions, NULL-terminated */
	/*
	 * The other actions its windows carry (etcd's BecomeLeader, its
	 * auxiliary windows), NULL-terminated; a refining system's are its
	 * base's; NULL: none.  Only to tell systems apart: a file of them is
	 * still this system's though another system targets the name.
	 */
	const char *const *auxiliary;
	enum window_form form;          /* form of the reference corpus */
	/* Fold one run: read run->path, write run->events and run->windows. */
	void (*fold)(struct fold_run *run);
	/* Coverage domain for "capture audit" (capture/audit.h); NULL: none. */
	const struct audit_domain *audit;
	/*
	 * The state variables the ITF form cannot write as plain JSON (sets,
	 * maps, tuples, optional values), with their types, NULL-terminated
	 * (capture/itf.h); NULL: none.
	 */
	const struct itf_var *itf;
	/*
	 * The data keys that name who acts (the canonical form's "actor"),
	 * the first present wins, NULL-terminated; NULL: no actor.
	 */
	const char *const *actor;
	/*
	 * Another system's projection with that system's actions (the
	 * extended spin-spinning of spin), or a family's (a raft's, of
	 * folders/raft/'s raft_projection), or NULL: such a system is never
	 * inferred from action names; a manifest or --system names it.
	 */
	const struct folder *refines;
};

/* A system; its name (SYSTEM/ in a corpus, `capture NAME`) is its folder's. */
struct system {
	const struct folder *folder;
	const struct live_system *live;  /* `capture NAME`; NULL: fold only */
	const char *scenarios;           /* scenario directory under
					  * capture_home(); NULL: none */
};

/*
 * The table (capture/cli/systems.c), in `capture list` order, ended by an
 * entry without a folder: the CLI hands it to the core before any lookup
 * (a harness that links no CLI hands its own).  Until then it is empty.
 */
void system_table_set(const struct system *table);
const struct system *system_table(void);

/* The system called @name (the table's, or the one projected), or NULL. */
const struct system *system_find(const char *name);
/*
 * The system a spec's projection makes at run time (projection.h), which
 * system_find() finds by its name after the table's; NULL: none.
 */
void system_set_projected(const struct system *s);
/* "a, b, c": the systems' names, for messages; caller frees. */
char *systems_known(void);

#endif
