// SPDX-License-Identifier: MIT
/* Scenario files as lines (scenario-lines.h). */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "scenario-lines.h"

struct scenario scenario_read(const char *path)
{
	struct scenario s = { 0 };
	char *text = read_file(path, NULL), *save = NULL;

	if (!text)
		die(EXIT_CAPTURE_FAILED, "%s: cannot read", path);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (*l == '#')
			continue;
		s.lines = xrealloc(s.lines, (s.n + 1) * sizeof(*s.lines));
		s.lines[s.n++] = xstrdup(l);
		if (!strncmp(l, "config ", 7))
			s.header = s.n;
	}
	free(text);
	return s;
}

void scenario_free(struct scenario *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i]);
	free(s->lines);
	classes_free(&s->adds);
	classes_free(&s->seen);
}

void scenario_write(const struct scenario *s, const char *comment,
		    const char *skip, const char *path)
{
	struct strbuf sb = { 0 };

	if (comment)
		strbuf_addstr(&sb, comment);
	for (size_t i = 0; i < s->n; i++)
		if (!skip || !skip[i])
			strbuf_addf(&sb, "%s\n", s->lines[i]);
	/*
	 * Into the work or stage directory, which a signal's cleanups remove:
	 * a file made while they run would keep it from going.
	 */
	cleanups_hold();
	write_file(path, sb.buf, sb.len);
	cleanups_release();
	strbuf_release(&sb);
}

