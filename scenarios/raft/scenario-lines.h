/* SPDX-License-Identifier: MIT */
/* A scenario file of the harness's language as the exploration edits it. */
#ifndef SCENARIOS_RAFT_SCENARIO_LINES_H
#define SCENARIOS_RAFT_SCENARIO_LINES_H

#include "classes.h"

/* A scenario file as lines; its steps are the lines after the header. */
struct scenario {
	char **lines;
	size_t n, header;
	struct classes adds;   /* the classes it was kept for */
	struct classes seen;   /* every class its run showed */
	unsigned picked;       /* how many tries mutated it */
	int parent;            /* kept for raft's coverage only: no output */
};

/* Read @path (dies if it cannot); scenario_free() it. */
struct scenario scenario_read(const char *path);
void scenario_free(struct scenario *s);
/* Write @s to @path, @comment first, without the lines @skip marks (NULL: all of them). */
void scenario_write(const struct scenario *s, const char *comment,
		    const char *skip, const char *path);

#endif
