/* SPDX-License-Identifier: MIT */
/*
 * Reader of the serial event channel a guest writes amid its console
 * output (any system whose emitter speaks it: spin's kernel module and
 * Asterinas's instrumentation):
 *
 *   CAPTURE BEGIN <scenario>
 *   {"seq":N, ...}            one JSON event a line, seq from 0
 *   CAPTURE END <number of events>
 *
 * Other lines are noise (boot messages, test-runner lines) and skipped.
 * The reader checks the protocol (markers once each and in order, one
 * JSON object a line, no seq gap -- seq may wrap modulo 100, as the
 * Asterinas emitter's does -- and as many events as the END marker
 * counts) and hands the system's folder each event; what an event means
 * is the folder's.
 */
#ifndef FOLDERS_SERIAL_H
#define FOLDERS_SERIAL_H

#include <cJSON.h>
#include "../ndjson.h"

struct cap_err;

/* What an event means is the folder's: its callbacks may die as it decides. */
struct serial_ops {
	const char *system;   /* named in "not a SYSTEM capture" */
	/* At CAPTURE BEGIN. */
	void (*begin)(void *ctx);
	/* Each event, in order, its seq checked (@in at its line). */
	void (*event)(void *ctx, const cJSON *ev);
	/* At CAPTURE END, every event counted. */
	void (*end)(void *ctx);
};

/*
 * Read @path (named @as in messages) through @in, which the callbacks may
 * use for file:line messages, and close it.  Returns the number of events;
 * -1 with @err naming file:line: EXIT_BAD_INPUT (it cannot be opened or
 * read, an event that does not parse, an END count below the events
 * read), EXIT_CHECK_FAILED (markers out of
 * order) or EXIT_CAPTURE_FAILED (lost events, truncation).
 */
long long serial_read(struct line_reader *in, const char *path, const char *as,
		      const struct serial_ops *ops, void *ctx, struct cap_err *err);

#endif
