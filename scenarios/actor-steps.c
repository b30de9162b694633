// SPDX-License-Identifier: MIT
/* The step language of the lock scenarios (see actor-steps.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/ndjson.h"
#include "actor-steps.h"

/* x86's COMMAND_LINE_SIZE, less room for the runner's own words. */
#define MAX_SCENARIO_WORDS 1600

static int parse_op(const char *word, const char *const ops[])
{
	for (int i = 0; ops[i]; i++)
		if (!strcmp(word, ops[i]))
			return i;
	return -1;
}

/* "lock|try|release": what a line may say. */
static char *op_choices(const char *const ops[])
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; ops[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", ops[i]);
	return sb.buf;
}

static _Noreturn void bad_op(struct line_reader *r, const char *const ops[],
			     const char *actor, const char *op)
{
	die_at(EXIT_BAD_INPUT, r->path, r->line, "expected 'ACTOR %s', got '%s%s%s'",
	       op_choices(ops), actor, op ? " " : "", op ? op : "");
}

/* One "ACTOR OP" line (comment already cut off); 0 if blank. */
static int parse_step(struct line_reader *r, char *text, const char *const ops[],
		      struct actor_step *st)
{
	char *save = NULL;
	char *actor = strtok_r(text, " \t", &save);
	char *op = strtok_r(NULL, " \t", &save);

	if (!actor)
		return 0;
	if (strcmp(actor, "0") && strcmp(actor, "1"))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "actor must be 0 or 1, not '%s'", actor);
	if (!op || (st->op = parse_op(op, ops)) < 0)
		bad_op(r, ops, actor, op);
	if (strtok_r(NULL, " \t", &save))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "extra words after '%s %s'", actor, op);
	st->actor = actor[0] - '0';
	st->line = r->line;
	return 1;
}

struct actor_step *actor_steps_load(const char *path, const char *const ops[],
				    size_t *n)
{
	struct actor_step *steps = NULL;
	struct line_reader r;
	const char *line;
	size_t alloc = 0;

	*n = 0;
	line_reader_open(&r, path);
	while ((line = line_reader_next(&r))) {
		char *text = xstrdup(line);
		struct actor_step st;

		text[strcspn(text, "#")] = '\0';
		if (parse_step(&r, text, ops, &st)) {
			if (*n == alloc) {
				alloc = alloc * 2 + 16;
				steps = xrealloc(steps, alloc * sizeof(*steps));
			}
			steps[(*n)++] = st;
		}
		free(text);
	}
	line_reader_close(&r);
	if (!*n)
		die_at(EXIT_BAD_INPUT, path, 0, "no steps");
	return steps;
}

char *actor_steps_cmdline(const char *name, const char *path,
			  const struct actor_step *steps, size_t n,
			  const char *letters)
{
	char *word = xcalloc(2 * n + 1, 1);
	char *words;

	for (size_t i = 0; i < n; i++) {
		word[2 * i] = (char)('0' + steps[i].actor);
		word[2 * i + 1] = letters[steps[i].op];
	}
	words = xasprintf("capture_name=%s capture_steps=%s", name, word);
	free(word);
	if (strlen(words) > MAX_SCENARIO_WORDS)
		die_at(EXIT_BAD_INPUT, path, 0,
		       "%zu steps do not fit the kernel command line (at most %d)",
		       n, (int)(MAX_SCENARIO_WORDS - (strlen(words) - 2 * n)) / 2);
	return words;
}

_Noreturn void actor_steps_refused(const char *path, const struct actor_step *steps,
				   size_t n, const char *const ops[],
				   const char *module, const char *error)
{
	unsigned long i;
	int used = 0;

	if (sscanf(error, "step %lu: %n", &i, &used) == 1 && used && i < n)
		die_at(EXIT_BAD_INPUT, path, steps[i].line,
		       "'%d %s': the kernel cannot run this step: %s",
		       steps[i].actor, ops[steps[i].op], error + used);
	die(EXIT_CAPTURE_FAILED, "the %s module failed: %s", module, error);
}
