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
 * in place of the record it would have been, so the consumer dies on it
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

/*
 * Work done on the reading thread for each record, whose result the
 * consumer gets with it: e.g. the record serialized.  It must not die nor
 * keep @v; it may leave @out empty (the consumer then does the work).
 */
typedef void ndjson_prepare_fn(struct json_tokens *t, struct strbuf *out);

/*
 * Start reading @n open readers ahead; they belong to the thread until
 * ndjson_ahead_stop().  @prepare may be NULL.
 */
struct ndjson_ahead *ndjson_ahead_start(struct line_reader *const *readers,
					size_t n, ndjson_prepare_fn *prepare);
/*
 * The next record of file @i (NULL at its end) and its line; *prepared is
 * what @prepare made of it.  Both are valid until the record is released.
 * Dies on a bad line.
 */
struct json_tokens *ndjson_ahead_next(struct ndjson_ahead *a, size_t i,
				      long *line, const struct strbuf **prepared);
/* The oldest record taken from file @i and not released is dead. */
void ndjson_ahead_release(struct ndjson_ahead *a, size_t i);
/* Stop the thread; frees the records not taken. */
void ndjson_ahead_stop(struct ndjson_ahead *a);

#endif
