// SPDX-License-Identifier: MIT
/* zookeeper scenario files (see steps.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/ndjson.h"
#include "steps.h"

static const char *const words[] = {
	[ZK_START] = "start", [ZK_KILL] = "kill", [ZK_RESTART] = "restart",
	[ZK_ISOLATE] = "isolate", [ZK_HEAL] = "heal", [ZK_WRITE] = "write",
	[ZK_ELECTED] = "elected",
};

const char *zk_step_word(enum zk_op op)
{
	return words[op];
}

/* A server: an id from 1, or a word the step @op takes for one. */
static int server(const struct line_reader *in, const char *w, enum zk_op op)
{
	const char *alias = op == ZK_KILL || op == ZK_ISOLATE ? "leader" :
			    op == ZK_RESTART ? "killed or first-killed" : NULL;
	char *end;
	long id = strtol(w, &end, 10);

	if ((op == ZK_KILL || op == ZK_ISOLATE) && !strcmp(w, "leader"))
		return ZK_LEADER;
	if (op == ZK_RESTART && !strcmp(w, "killed"))
		return ZK_KILLED;
	if (op == ZK_RESTART && !strcmp(w, "first-killed"))
		return ZK_FIRST_KILLED;
	if (*end || id < 1 || id > ZK_MAX_SERVERS)
		die_at(EXIT_BAD_INPUT, in->path, in->line, "'%s': a server is an id from 1 to %d%s%s",
		       w, ZK_MAX_SERVERS, alias ? ", or " : "", alias ? alias : "");
	return (int)id;
}

static void parse(struct zk_scenario *s, const struct line_reader *in, char *text)
{
	char *w[ZK_MAX_SERVERS + 2], *save = NULL, *end;
	int n = 0, op;
	struct zk_step st = { .line = in->line };

	for (char *t = strtok_r(text, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
		if (n < ZK_MAX_SERVERS + 2)
			w[n++] = t;
		else
			die_at(EXIT_BAD_INPUT, in->path, in->line, "too many words");
	if (!n)
		return;
	for (op = 0; op <= ZK_ELECTED && strcmp(words[op], w[0]); op++)
		;
	if (op > ZK_ELECTED)
		die_at(EXIT_BAD_INPUT, in->path, in->line, "'%s': expected start, kill, restart, "
		       "isolate, heal, write or elected", w[0]);
	st.op = op;
	if ((op == ZK_HEAL || op == ZK_ELECTED) && n != 1)
		die_at(EXIT_BAD_INPUT, in->path, in->line, "%s takes no operand", w[0]);
	if ((op == ZK_KILL || op == ZK_ISOLATE || op == ZK_WRITE) && n != 2)
		die_at(EXIT_BAD_INPUT, in->path, in->line, "%s takes one operand", w[0]);
	if ((op == ZK_START || op == ZK_RESTART) && n < 2)
		die_at(EXIT_BAD_INPUT, in->path, in->line, "%s takes its servers", w[0]);
	if (op == ZK_WRITE) {
		st.n = (int)strtol(w[1], &end, 10);
		if (*end || st.n < 1 || st.n > 100)
			die_at(EXIT_BAD_INPUT, in->path, in->line, "write N: N from 1 to 100");
	} else {
		for (int i = 1; i < n; i++) {
			st.servers[st.n++] = server(in, w[i], op);
			if (op == ZK_START && st.servers[i - 1] > s->nservers)
				s->nservers = st.servers[i - 1];
		}
	}
	s->steps = xrealloc(s->steps, (s->nsteps + 1) * sizeof(*s->steps));
	s->steps[s->nsteps++] = st;
}

void zk_scenario_load(struct zk_scenario *s, const char *name, const char *run,
		      const char *path)
{
	struct line_reader in;
	const char *line;

	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->run = xstrdup(run);
	s->path = xstrdup(path);
	line_reader_open(&in, path);
	while ((line = line_reader_next(&in))) {
		char *text = xstrdup(line);

		text[strcspn(text, "#")] = 0;
		parse(s, &in, text);
		free(text);
	}
	line_reader_close(&in);
	if (!s->nservers)
		die_at(EXIT_BAD_INPUT, path, 0, "no server is started");
}

void zk_scenario_free(struct zk_scenario *s)
{
	free(s->name);
	free(s->run);
	free(s->path);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}
