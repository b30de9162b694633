// SPDX-License-Identifier: MIT
/* A raft harness's step map: raft-steps.h. */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/ndjson.h"
#include "raft-steps.h"

struct step_at {
	long events;   /* trace events written before the step */
	char *pos;     /* the step's FILE:LINE */
};

struct raft_steps {
	struct step_at *at;
	size_t n;
};

static void add_step(struct raft_steps *s, const struct line_reader *r,
		     const char *text)
{
	char *end;
	long n = strtol(text, &end, 10);

	if (end == text || *end != ' ' || n < 0 || !end[1] ||
	    (s->n && n < s->at[s->n - 1].events))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "not a step map line (EVENTS FILE:LINE, EVENTS rising)");
	s->at = xrealloc(s->at, (s->n + 1) * sizeof(*s->at));
	s->at[s->n].events = n;
	s->at[s->n++].pos = xstrdup(end + 1);
}

struct raft_steps *raft_steps_read(const char *path)
{
	struct raft_steps *s;
	struct line_reader r;
	const char *text;

	if (!path)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	line_reader_open(&r, path);
	while ((text = line_reader_next(&r)))
		add_step(s, &r, text);
	line_reader_close(&r);
	return s;
}

const char *raft_step_at(const struct raft_steps *s, long line)
{
	const char *pos = NULL;

	for (size_t i = 0; s && i < s->n && s->at[i].events < line; i++)
		pos = s->at[i].pos;
	return pos;
}

void raft_steps_free(struct raft_steps *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->at[i].pos);
	free(s->at);
	free(s);
}
