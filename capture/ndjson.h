/* SPDX-License-Identifier: MIT */
/*
 * Line reader for NDJSON and line-oriented logs.
 *
 * Streams: one line in memory at a time.  Every error it or its user raises
 * names the file and the 1-based line number (die_at(..., r->path, r->line)).
 * A last line without '\n' is reported through r->truncated so that a
 * stream cut off mid-line can be told apart from a complete one.
 */
#ifndef CAPTURE_NDJSON_H
#define CAPTURE_NDJSON_H

#include <stdio.h>
#include <cJSON.h>
#include "json-tokens.h"

struct cap_err;

struct line_reader {
	const char *path;
	FILE *f;
	long line;       /* number of the line last returned */
	char *buf;       /* the line, without '\n' or trailing '\r' */
	size_t len;
	size_t alloc;
	int truncated;   /* the line last returned had no '\n' */
	char *iobuf;     /* stdio's buffer for f */
};
#define LINE_READER_BUFFER (1 << 16)   /* a PGo run keeps one per process */

/*
 * Open @path ("-" is stdin); dies with EXIT_BAD_INPUT if it cannot, or if
 * it is a device.
 */
void line_reader_open(struct line_reader *r, const char *path);
/* The same, naming @name (the file @path is a copy of) in every error. */
void line_reader_open_as(struct line_reader *r, const char *path,
			 const char *name);
/*
 * The libraries' and readers' forms of these (bpf/gospec.c; folders/:
 * serial.c, with-tla.c): -1 and @err (EXIT_BAD_INPUT, file:line) where
 * the others die.
 */
int line_reader_try_open_as(struct line_reader *r, const char *path,
			    const char *name, struct cap_err *err);
/* Next line, or NULL at end of file. */
const char *line_reader_next(struct line_reader *r);
/* The next line into *@line (NULL at end of file), or -1 on a read error. */
int line_reader_try_next(struct line_reader *r, const char **line,
			 struct cap_err *err);
void line_reader_close(struct line_reader *r);

/*
 * Next non-empty line parsed as JSON, or NULL at end of file.  A line that
 * is not JSON, holds what the writer refuses (json_check_record()), or is
 * a truncated last line dies with file:line.  The caller owns the result
 * (cJSON_Delete).
 */
cJSON *ndjson_next(struct line_reader *r);
/* ndjson_next() into *@out, or -1 and @err (nothing to free) where it dies. */
int ndjson_try_next(struct line_reader *r, cJSON **out, struct cap_err *err);

/*
 * A parse arena: the nodes of a tree parsed into it come from one slab,
 * and go all at once when the arena is reused.  Parsing and freeing a
 * record node by node through malloc is most of the cost of reading a
 * large corpus; a reader that holds a bounded number of records (one per
 * arena, window-read.h) gets the same trees without it.  cJSON_Delete() on an arena tree
 * is allowed and frees only what did not fit in the slab.  Under
 * AddressSanitizer arenas hand out heap memory, so that a tree used after
 * its arena was reused is still caught.  Arenas are made and freed on one
 * thread (their bookkeeping takes no lock).
 */
struct json_arena;
struct json_arena *json_arena_new(void);
void json_arena_free(struct json_arena *a);
/*
 * ndjson_next() into @a: every tree earlier parsed into @a must be dead
 * (deleted or never to be used again).
 */
cJSON *ndjson_next_in(struct line_reader *r, struct json_arena *a);
/*
 * Delete @tree, the last one parsed into @a: walks it only if some node did
 * not fit in the slab (always under AddressSanitizer).
 */
void json_arena_delete(struct json_arena *a, cJSON *tree);

/* What ndjson_try_next_tokens() found wrong, for die_at(..., r->path, line). */
struct ndjson_error {
	long line;
	char msg[160];
};
/*
 * The next non-empty line as JSON tokens (json-tokens.h), in @text, which
 * the tokens point into (@text and @r trade buffers: the line is not
 * copied; @text must own its buffer), reporting instead of dying, for a reader
 * thread: 1 with a record, 0 at end of file, -1 with @e set (a read error,
 * a truncated last line, or what the tokenizer refuses, at which byte).
 */
int ndjson_try_next_tokens(struct line_reader *r, struct strbuf *text,
			   struct json_tokens *t, struct ndjson_error *e);

/*
 * The natural number at @key of the event @obj, read from @r's current line;
 * dies with EXIT_BAD_INPUT naming file:line and the key if it is not one.
 */
long long ndjson_natural(const struct line_reader *r, const cJSON *obj,
			 const char *key);
/* The same into *@v, or -1 and @err. */
int ndjson_try_natural(const struct line_reader *r, const cJSON *obj,
		       const char *key, long long *v, struct cap_err *err);

#endif
