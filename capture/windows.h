/* SPDX-License-Identifier: MIT */
/*
 * Window and event writers.
 *
 * A folder reports each step of a run as (action, data, post-state); the
 * pre-state is the previous post-state (or the initial state).  The writer
 * renders the window in the chosen form:
 *  event form:  {"action", "data", "pre_state", "post_state"}, one a line;
 *  stream form: {"state": initial} then {"action", "data", "state"};
 *  ITF form:    one Informal Trace Format trace on one line (itf.h);
 *  canonical form: SysMoBench's window validation records, one file per
 *               action for the whole corpus (SYSTEM/ACTION.ndjson, every
 *               run's windows of that action), one a line:
 *               {"window_id", "trace_id", "seq", "action", "actor",
 *                "pre_state", "post_state", "input"} (docs/canonical.md);
 * with the chosen JSON style (python separators by default, RFC 8785 for
 * canonical).  Writers opened without a corpus check but write nothing
 * ("capture check").  Actions are counted for the manifest.
 */
#ifndef CAPTURE_WINDOWS_H
#define CAPTURE_WINDOWS_H

#include <stdio.h>
#include <cJSON.h>
#include "itf.h"
#include "json.h"

struct corpus;

enum window_form { FORM_EVENT, FORM_STREAM, FORM_ITF, FORM_CANONICAL };

/* The window file's name ends with ".ndjson", or ".itf.json" (ITF). */
const char *window_file_ext(enum window_form form);
/* What --form calls @form ("event", "stream", "itf", "canonical"). */
const char *window_form_name(enum window_form form);
/* Their names, in the enum's order, NULL-ended (--form's choices). */
extern const char *const window_form_names[];

struct output_format {
	enum window_form form;
	enum json_style style;
};

/*
 * One window, as read back (window-read.h) or as written; its JSON values
 * belong to whoever hands it over.
 */
struct window {
	const char *file;   /* path of the window file */
	long line;          /* its 1-based line */
	const char *action;
	const cJSON *data, *pre, *post;
	const char *trace;  /* canonical form: its trace_id and seq; else */
	long seq;           /* NULL and 0 */
	const char *impossible; /* an impossibility window's reason; else NULL */
};

/* Does @w's post equal its pre? */
int window_is_identity(const struct window *w);

struct window_writer;

/*
 * @c may be NULL (write nothing).  @initial is copied.  @itf says what
 * the ITF and canonical forms write beside the states (its strings must
 * outlive the writer); other forms ignore it.  The canonical form writes
 * no file @rel: its windows go to the corpus's SYSTEM/ACTION.ndjson
 * (@itf->system, the trace @itf->run), open until corpus_commit().
 */
struct window_writer *windows_open(struct corpus *c, const char *rel,
				   struct output_format fmt,
				   const cJSON *initial,
				   const struct itf_head *itf);
/*
 * The same onto @f, which windows_close() leaves open (capture convert);
 * @name names it in messages.  The canonical form writes every action's
 * windows onto @f, window_id counting them all.
 */
struct window_writer *windows_open_file(FILE *f, const char *name,
					struct output_format fmt,
					const cJSON *initial,
					const struct itf_head *itf);
/*
 * One step.  @data and @post become the writer's (@post is the next
 * window's pre-state): a folder builds them for the window and no copy is
 * made.
 */
void windows_add(struct window_writer *w, const char *action, cJSON *data,
		 cJSON *post);
/*
 * A call observed that never returned (a self-deadlock): no window is
 * written; the observer gets it as a window whose post is NULL.  Returns
 * the state it was called in (the writer's).
 */
const cJSON *windows_never_completing(struct window_writer *w,
				      const char *action, const cJSON *data);
/*
 * Did corpus @c get windows in the canonical form?  Then @st is their
 * JSON style.
 */
int windows_canonical_style(const struct corpus *c, enum json_style *st);
/*
 * A canonical record, its keys in the form's order; @pre, @post and
 * @input are referenced, not copied (delete the record before them);
 * the actor is the first of the data keys @actor that @input holds.
 */
cJSON *windows_canonical_record(long window_id, const char *trace, long seq,
				const char *action, const char *const *actor,
				cJSON *pre, cJSON *post, cJSON *input);
/* Hand each window added from now on to @fn as well (e.g. an audit). */
typedef void window_observer(void *ctx, const struct window *w);
void windows_observe(struct window_writer *w, window_observer *fn, void *ctx);
/* Close; merges per-action counts into @counts (object action -> n). */
void windows_close(struct window_writer *w, cJSON *counts);

/* Normalized event stream (events/<run>.ndjson), compact JSON a line. */
struct event_writer;
struct event_writer *events_open(struct corpus *c, const char *rel);
void events_add(struct event_writer *e, const cJSON *event);
/* An event already serialized as events_add() would, newline included. */
void events_add_line(struct event_writer *e, const char *line, size_t len);
long events_close(struct event_writer *e);  /* returns the event count */

#endif
