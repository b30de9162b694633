/* SPDX-License-Identifier: MIT */
/*
 * A projection read from a spec (docs/projection.md): which fields of a
 * program's events are its observable state and what keys it, which events
 * are actions (a call: an entry and its return; or one event), their
 * actor and data, and the audit's axes.  It makes a system at run time: a
 * struct folder that folds those events into windows, with no C of the
 * program's own.  A corpus folded by one keeps a copy of the spec
 * (MANIFEST.json's "projection"), from which every command rebuilds it.
 *
 * One projection at a time in a process (a command handles one system);
 * loading another of the same name with other text is refused.
 */
#ifndef CAPTURE_PROJECTION_H
#define CAPTURE_PROJECTION_H

#include <cJSON.h>
#include "err.h"

struct folder;
struct system;
struct corpus;

/* The corpus's copy of the spec a projection was read from. */
#define PROJECTION_FILE "projection.probes"

/*
 * The projection of the spec @path: 0 and *@sys NULL when the file
 * declares none (no "projection" line), else the system it makes
 * (registered: system_find() finds it by name); -1 and @err ("FILE:LINE:
 * why", EXIT_BAD_INPUT) for a malformed one or an unreadable file.
 */
int projection_load(const char *path, const struct system **sys,
		    struct cap_err *err);
/* The same, naming @name (what @path is a copy of) in messages. */
int projection_load_as(const char *path, const char *name,
		       const struct system **sys, struct cap_err *err);

/*
 * Forget the projection loaded: the next load makes a new system (a fuzz
 * harness reads spec after spec in one process).
 */
void projection_forget(void);

/* Does @f fold by a projection? */
int projection_folder(const struct folder *f);

/*
 * The system called @name (system.h), else the projection of spec file
 * @name (a path, or a *.probes file); none: die with EXIT_USAGE listing
 * the known systems.
 */
const struct system *system_lookup(const char *name);

/*
 * Check the projection of @sys (loaded from a spec) against what the
 * spec's events hold, @events {EVENT: [FIELD...]} (bpf/gospec.h's
 * go_spec_schema()), before anything runs: every event it names is one,
 * and carries the state's, key's and thread's fields, the data and a by's
 * field (in the entry or the return).  -1 and @err ("SPEC:LINE: why",
 * EXIT_BAD_INPUT) on the first that is not.
 */
int projection_check_events(const struct system *sys, const cJSON *events,
			    struct cap_err *err);

/*
 * Record @f's projection in corpus @c (nothing if @f is no projection's):
 * the spec copied as PROJECTION_FILE and "projection": {"name", "file",
 * "source", "sha256"} in its manifest.
 */
void projection_record(struct corpus *c, const struct folder *f);

/*
 * The system of the corpus @dir whose manifest (read from @mpath) is @m:
 * the projection it records, rebuilt from its copy (checked against its
 * sha256), else the built-in system it names; NULL if it names none known.
 * Dies (EXIT_BAD_INPUT, naming the file) on a copy that is altered or
 * does not parse.
 */
const struct system *corpus_system(const char *dir, const cJSON *m,
				   const char *mpath);

/*
 * The system of the corpus around the window file @path (a corpus's
 * SYSTEM/RUN.ndjson, or SYSTEM/ACTION.ndjson in the canonical form) when it
 * records a projection; NULL otherwise.
 */
const struct system *projection_around(const char *path);

#endif
