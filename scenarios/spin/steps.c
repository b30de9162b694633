// SPDX-License-Identifier: MIT
/* Spin scenario files: parsing and selection (see steps.h). */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/proc.h"
#include "../../capture/ndjson.h"
#include "../../capture/scenario.h"
#include "steps.h"

static const char *const op_names[] = {
	[SPIN_LOCK] = "lock",
	[SPIN_TRY] = "try",
	[SPIN_RELEASE] = "release",
};

const char *spin_op_name(enum spin_op op)
{
	return op_names[op];
}

static int parse_op(const char *word, enum spin_op *op)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
		if (!strcmp(word, op_names[i])) {
			*op = (enum spin_op)i;
			return 0;
		}
	}
	return -1;
}

/* One "ACTOR OP" line (comment already cut off); 0 if blank. */
static int parse_step(struct line_reader *r, char *text, struct spin_step *st)
{
	char *save = NULL;
	char *actor = strtok_r(text, " \t", &save);
	char *op = strtok_r(NULL, " \t", &save);

	if (!actor)
		return 0;
	if (strcmp(actor, "0") && strcmp(actor, "1"))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "actor must be 0 or 1, not '%s'", actor);
	if (!op || parse_op(op, &st->op))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "expected 'ACTOR lock|try|release', got '%s%s%s'",
		       actor, op ? " " : "", op ? op : "");
	if (strtok_r(NULL, " \t", &save))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "extra words after '%s %s'", actor, op);
	st->actor = actor[0] - '0';
	st->line = r->line;
	return 1;
}

void spin_scenario_load(const char *path, struct spin_scenario *s)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *name = NULL;
	struct line_reader r;
	const char *line;
	size_t alloc = 0;

	memset(s, 0, sizeof(*s));
	s->index = scenario_file_name(base, &name);
	if (s->index < 0)
		die_at(EXIT_BAD_INPUT, path, 0,
		       "scenario file names are NN-NAME (NAME of letters, digits, - and _)");
	s->name = xstrdup(name);
	s->path = xstrdup(path);
	line_reader_open(&r, path);
	while ((line = line_reader_next(&r))) {
		char *text = xstrdup(line);
		struct spin_step st;

		text[strcspn(text, "#")] = '\0';
		if (parse_step(&r, text, &st)) {
			if (s->nsteps == alloc) {
				alloc = alloc * 2 + 16;
				s->steps = xrealloc(s->steps, alloc * sizeof(*s->steps));
			}
			s->steps[s->nsteps++] = st;
		}
		free(text);
	}
	line_reader_close(&r);
	if (!s->nsteps)
		die_at(EXIT_BAD_INPUT, path, 0, "no steps");
}

void spin_scenario_free(struct spin_scenario *s)
{
	free(s->name);
	free(s->path);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}

void spin_scenarios_free(struct spin_scenario *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		spin_scenario_free(&v[i]);
	free(v);
}
