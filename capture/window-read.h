/* SPDX-License-Identifier: MIT */
/*
 * Reading window files back: what audit, convert and grade share.
 *
 * A window file is NDJSON in event form ({"action", "data", "pre_state",
 * "post_state"} a line) or stream form ({"state": initial}, then
 * {"action", "data", "state"} a line); the form is detected from the
 * first line.  A file named *.itf.json is one ITF trace (itf.h), read
 * whole; its windows' "line" is the index of the state they reach.
 * Inputs name window files, directories of them, or corpora (a directory
 * with MANIFEST.json, whose runs are SYSTEM/RUN.ndjson or .itf.json).
 * Everything malformed dies with file:line and EXIT_BAD_INPUT.
 */
#ifndef CAPTURE_WINDOW_READ_H
#define CAPTURE_WINDOW_READ_H

#include <stddef.h>
#include <cJSON.h>
#include "windows.h"

struct folder;

struct window_file {
	char *path;         /* as opened */
	char *label;        /* how reports name it (run) */
	enum window_form form;
	cJSON *initial;     /* pre-state of the first window (stream: the
			     * seed); NULL for an empty event-form file */
	struct window *w;   /* NULL and n 0 in a lazy set (window_set) */
	size_t n;
	cJSON *owned;       /* array keeping every parsed line alive */
	const cJSON *meta;  /* ITF: the trace's "#meta" (NULL if none) */
	/*
	 * A corpus's run: the calls its folder saw that never returned
	 * (manifest runs[].info.never_completing: {action, data,
	 * pre_state} each, fold_run_never_completing()); NULL if none.
	 */
	cJSON *never_completing;
};

/* Load every window of @path; @label names the run in reports. */
void window_file_load(struct window_file *wf, const char *path,
		      const char *label);
void window_file_free(struct window_file *wf);

/* The window files of several inputs, all of one system. */
struct window_set {
	struct window_file *files;
	size_t n;
	const struct folder *system;  /* NULL until known */
	char *system_from;            /* what told us the system */
	/*
	 * Set before adding files: they are only named (no windows in
	 * memory) and window_set_walk() streams them from disk.
	 */
	int lazy;
};

/*
 * Add @input: a window file, a directory of *.ndjson window files, or a
 * corpus.  Each file is labelled by its path as reached from @input.
 */
void window_set_add(struct window_set *ws, const char *input);
/* Add the window file @path, named @label in reports. */
void window_set_add_file(struct window_set *ws, const char *path,
			 const char *label);
/*
 * Settle the system: @name (--system) if given, else the manifests', else
 * the folder whose actions the windows use.  Dies if inputs disagree.
 */
void window_set_system(struct window_set *ws, const char *name);
void window_set_free(struct window_set *ws);

/*
 * Call @fn for every window of file @file of @ws, in order.  The window
 * and its JSON are valid only during the call when the set is lazy.
 */
typedef void window_fn(void *ctx, size_t file, const struct window *w);
void window_set_walk(const struct window_set *ws, size_t file,
		     window_fn *fn, void *ctx);

/*
 * The one JSON value of file @path (@what it is, for messages), parsed as
 * strictly as an NDJSON line: dies (EXIT_BAD_INPUT, @path:line) if it is
 * not JSON, has more after it, or an object repeats a key.
 */
cJSON *json_file_read(const char *path, const char *what);

/*
 * qsort() order of canonical windows (pointers to them): by trace_id,
 * then seq, the order of their runs.
 */
int window_trace_order(const void *a, const void *b);

#endif
