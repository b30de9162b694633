/* SPDX-License-Identifier: MIT */
/*
 * The ITF window form: Apalache's Informal Trace Format (ADR-015) with
 * Quint's model-based-testing metadata.  One run is one trace:
 *
 *   {"#meta": {"format": "ITF", ..., "system", "source", "run"},
 *    "vars": [state keys..., "mbt::actionTaken", "mbt::nondetPicks"],
 *    "states": [{"#meta": {"index": K}, state keys...,
 *                "mbt::actionTaken": ACTION,
 *                "mbt::nondetPicks": {DATA KEY: Some(VALUE), ...}}, ...]}
 *
 * State 0 is the initial state, its action "init" with no picks (as Quint
 * writes it); state K is window K's post-state, reached by its action with
 * its data as the picks.  Values in ITF's encodings: every integer is
 * {"#bigint": "N"} (ADR-015 since 2023-09: no JSON numbers), lists are
 * arrays, records objects; what JSON cannot say -- sets, maps, tuples,
 * optional values -- the system declares per state variable (struct
 * itf_var).  Picks are Quint's Option variants {"tag": "Some", "value": V}.
 *
 * Reading needs no declaration: #set and #tup read back as arrays, #map as
 * an object (string keys), Some(V) as V, None as null, a None pick as no
 * data member, so that a trace this writer wrote reads back as the windows
 * it was written from, byte for byte in every form.
 */
#ifndef CAPTURE_ITF_H
#define CAPTURE_ITF_H

#include <cJSON.h>
#include "json.h"

/*
 * How ITF writes the state variable @name, a type of
 *   set | set(T)        a JSON array as {"#set": [...]}
 *   list(T)             a JSON array, elements of type T
 *   tuple               a JSON array as {"#tup": [...]}
 *   map | map(T)        a JSON object as {"#map": [[key, value], ...]}
 *   option | option(T)  null as None, any other value V as Some(V)
 *   any                 plain JSON: arrays as lists, objects as records
 * (T is any when left out).  A system lists its variables that are not
 * plain JSON, NULL-terminated (capture/fold.h).
 */
struct itf_var {
	const char *name;
	const char *type;
};

/* What a trace says about itself (its "#meta") and how to write it. */
struct itf_head {
	const char *system;
	const char *source;          /* the run's input, as the manifest says */
	const char *run;
	const struct itf_var *types; /* NULL: every variable plain JSON */
	/* canonical form (windows.h): the data keys naming the actor */
	const char *const *actor;
};

/* Why a value has no ITF form or an ITF value no JSON one. */
struct itf_error {
	char msg[256];
};

/*
 * Writes one trace a state at a time into a caller's buffer, so that a
 * run's states need not be in memory together.  Functions returning int
 * return 0, or -1 with @e set.
 */
struct itf_writer;
/* The variables are @initial's keys; @h is copied. */
struct itf_writer *itf_writer_new(const struct itf_head *h,
				  const cJSON *initial);
/* The trace up to and with state 0. */
int itf_writer_open(struct itf_writer *w, struct strbuf *sb,
		    enum json_style st, struct itf_error *e);
/* The next state: @post reached by @action with @data. */
int itf_writer_state(struct itf_writer *w, struct strbuf *sb,
		     const char *action, const cJSON *data, const cJSON *post,
		     enum json_style st, struct itf_error *e);
/* The end of the trace, with its final newline. */
void itf_writer_close(struct itf_writer *w, struct strbuf *sb,
		      enum json_style st);
void itf_writer_free(struct itf_writer *w);

/*
 * The parsed trace @trace as the stream form's records: {"state": state 0},
 * then {"action", "data", "state"} for each further state.  NULL with @e
 * set on error, *@at the index of the state at fault (-1: the trace).
 */
cJSON *itf_read_trace(const cJSON *trace, long *at, struct itf_error *e);

#endif
