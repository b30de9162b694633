/* SPDX-License-Identifier: MIT */
/*
 * The folder interface: one per system (spin, locksvc, dqueue, etcd, ...).
 *
 * A folder turns the raw stream(s) of one run into normalized events and
 * windows over the system's observable state.  It owns the system's
 * declarations (actions, state keys in declared order, output form) and its
 * checks: a violation dies with file:line and EXIT_CHECK_FAILED (or
 * EXIT_BAD_INPUT for input that does not parse).  struct folder itself is
 * in capture/system.h (the core reads it); adding a system means one file
 * here and one line in registry.c (docs/architecture.md).
 */
#ifndef CAPTURE_FOLDER_H
#define CAPTURE_FOLDER_H

#include <cJSON.h>
#include "system.h"
#include "windows.h"

struct corpus;
struct audit_domain;

/* One run being folded. */
struct fold_run {
	const char *name;          /* run name: window file is SYSTEM/NAME.ndjson */
	const char *input;         /* a file, or a directory for multi-file runs */
	const char *path;          /* what to read: input, or the copy of a
				    * pipe (messages name input) */
	const char *source;        /* the input as the manifest names it */
	struct corpus *corpus;     /* NULL when only checking */
	struct output_format fmt;  /* requested window form and JSON style */
	struct event_writer *events;  /* events/NAME.ndjson, opened by fold_input() */
	struct window_writer *windows; /* opened by the folder (initial state) */
	struct itf_head itf;       /* what the ITF form says of the run */
	cJSON *repairs;            /* array: every repair applied, for the manifest */
	cJSON *counts;             /* object: windows per action */
	cJSON *info;               /* object: folder-specific facts for the
				    * manifest (inferred events, drops...) */
	window_observer *observe;  /* NULL, or also handed every window */
	void *observe_ctx;
	const char *step_map;      /* NULL, or the scenario step of each
				    * input line (etcd: the harness's map) */
};


/*
 * Open the run's window file SYSTEM/NAME.ndjson (SYSTEM/NAME.itf.json in
 * the ITF form) with the initial state.
 */
void fold_run_windows(struct fold_run *run, const struct folder *f,
		      const cJSON *initial);

/*
 * Report a call of @action with @data, in the current state, that never
 * returned (a lock() by the lock's holder): it makes no window; it is
 * recorded in the manifest (run info "never_completing": [{action, data,
 * pre_state}]) and the audit shows its cell as observed never completing.
 * Takes @data.
 */
void fold_run_never_completing(struct fold_run *run, const char *action,
			       cJSON *data);

/*
 * Fold @input as the run @name with @f: events to events/NAME.ndjson and
 * windows to SYSTEM/NAME.ndjson in corpus @c (NULL: check only).  Adds
 * {"name", "input", "events", "windows": {action: n}, "repairs"} for the
 * run to the array @runs (NULL: not recorded).  Dies on any violation.
 */
void fold_input(const struct folder *f, struct corpus *c, const char *name,
		const char *input, struct output_format fmt, cJSON *runs);

/*
 * fold_input() of every input, in order, as one run each, named by the
 * input's file name without its extension ("stdin" for "-"); two inputs
 * of one name die with EXIT_USAGE.  Returns the runs array.
 */
cJSON *fold_inputs(const struct folder *f, struct corpus *c, int n,
		   char **inputs, struct output_format fmt);

/* fold_input() with a step map (struct fold_run), NULL: none. */
void fold_input_mapped(const struct folder *f, struct corpus *c,
		       const char *name, const char *input,
		       struct output_format fmt, cJSON *runs,
		       const char *step_map);
/*
 * Fold @input as fold_input() checks it (nothing written), handing every
 * window to @fn(@ctx); @step_map as in struct fold_run.  Dies on any
 * violation; a run without windows is none.
 */
void fold_observed(const struct folder *f, const char *input,
		   const char *step_map, window_observer *fn, void *ctx);


#endif
