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

struct line_reader {
	const char *path;
	FILE *f;
	long line;       /* number of the line last returned */
	char *buf;       /* the line, without '\n' or trailing '\r' */
	size_t len;
	size_t alloc;
	int truncated;   /* the line last returned had no '\n' */
};

/* Open @path ("-" is stdin); dies with EXIT_BAD_INPUT if it cannot. */
void line_reader_open(struct line_reader *r, const char *path);
/* Next line, or NULL at end of file. */
const char *line_reader_next(struct line_reader *r);
void line_reader_close(struct line_reader *r);

/*
 * Next non-empty line parsed as JSON, or NULL at end of file.  A line that
 * is not JSON, or a truncated last line, dies with file:line.  The caller
 * owns the result (cJSON_Delete).
 */
cJSON *ndjson_next(struct line_reader *r);

#endif
