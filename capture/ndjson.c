// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "ndjson.h"

void line_reader_open(struct line_reader *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!r->f)
		die_at(EXIT_BAD_INPUT, path, 0, "cannot open: %s", strerror(errno));
}

const char *line_reader_next(struct line_reader *r)
{
	ssize_t n = getline(&r->buf, &r->alloc, r->f);

	if (n < 0) {
		if (ferror(r->f))
			die_at(EXIT_BAD_INPUT, r->path, r->line + 1,
			       "read error: %s", strerror(errno));
		return NULL;
	}
	r->line++;
	r->truncated = !(n > 0 && r->buf[n - 1] == '\n');
	while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
		r->buf[--n] = '\0';
	r->len = n;
	return r->buf;
}

void line_reader_close(struct line_reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	free(r->buf);
	r->f = NULL;
	r->buf = NULL;
}

cJSON *ndjson_next(struct line_reader *r)
{
	const char *line;

	while ((line = line_reader_next(r))) {
		if (strspn(line, " \t") == r->len)
			continue;
		const char *end = NULL;
		cJSON *v = cJSON_ParseWithLengthOpts(line, r->len, &end, 0);
		if (!v || strspn(end, " \t") != strlen(end)) {
			cJSON_Delete(v);
			die_at(EXIT_BAD_INPUT, r->path, r->line, "%s",
			       r->truncated ? "truncated JSON line (no newline at end of file)"
					    : "not a JSON value");
		}
		if (r->truncated) {
			cJSON_Delete(v);
			die_at(EXIT_BAD_INPUT, r->path, r->line,
			       "truncated last line (no newline at end of file)");
		}
		return v;
	}
	return NULL;
}
