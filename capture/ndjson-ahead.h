/* SPDX-License-Identifier: MIT */
/*
 * Read-ahead of several NDJSON files on a thread of their own.
 *
 * Parsing is most of the cost of folding a large trace, and a merge of
 * several files (PGo's one log per process) does the rest on one core.  A
 * reader thread tokenizes each file's next records, in file order, into a
 * ring of slots (ndjson.h, json-tokens.h); the consumer takes them in file
 * order, in whatever order of files it likes, and releases each record
 * once it is done with it, in file order too.  A bad line is handed over
 * in place of the record it would have been, so the consumer fails on it
 * (file:line) exactly when it reads that far: errors come in the same
 * order as without the thread.
 */
#ifndef CAPTURE_NDJSON_AHEAD_H
#define CAPTURE_NDJSON_AHEAD_H

#include <stddef.h>
#include "json-tokens.h"
#include "json.h"
#include "ndjson.h"

struct ndjson_ahead;
struct cap_err;

/*
 * Work done on the reading thread for a record, whose result the consumer
 * gets with it (e.g. the record serialized, or what it says digested):
 * done there, the record is still in that core's cache.  Each slot has a
 * state of @size bytes (zeroed at first) that prepare() fills record
 * after record, reusing what it allocated, and release() frees at the
 * end.  prepare() must not die (but when memory runs out) nor keep @t;
 * @file is the record's file.
 */
struct ndjson_preparer {
	void (*prepare)(void *ctx, size_t file, struct json_tokens *t,
			void *state);
	void (*release)(void *state);
	void *ctx;
	size_t size;
};

/*
 * Start reading @n open readers ahead; they belong to the thread until
 * ndjson_ahead_stop().  @p may be NULL (nothing prepared).
 */
struct ndjson_ahead *ndjson_ahead_start(struct line_reader *const *readers,
					size_t n, const struct ndjson_preparer *p);
/*
 * The next record of file @i into *@t (NULL at its end) and its line;
 * *prepared is its state from prepare(), or NULL when the reader left that
 * to the consumer (see PREPARE_FROM).  Both are valid until the record is
 * released.  A bad line is -1 and @err (EXIT_BAD_INPUT, file:line).
 */
int ndjson_ahead_next(struct ndjson_ahead *a, size_t i, struct json_tokens **t,
		      long *line, void **prepared, struct cap_err *err);
/* The oldest record taken from file @i and not released is dead. */
void ndjson_ahead_release(struct ndjson_ahead *a, size_t i);
/* Stop the thread; frees the records not taken. */
void ndjson_ahead_stop(struct ndjson_ahead *a);

#endif
