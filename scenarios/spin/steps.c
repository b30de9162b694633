// SPDX-License-Identifier: MIT
/* Spin scenario files: parsing and selection (see steps.h). */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/proc.h"
#include "../../capture/ndjson.h"
#include "../../capture/scenario.h"
#include "steps.h"

const char *const spin_op_names[] = {
	[SPIN_LOCK] = "lock",
	[SPIN_TRY] = "try",
	[SPIN_RELEASE] = "release",
	NULL,
};

void spin_scenario_load(const char *path, struct spin_scenario *s)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *name = NULL;

	memset(s, 0, sizeof(*s));
	s->index = scenario_file_name(base, &name);
	if (s->index < 0)
		die_at(EXIT_BAD_INPUT, path, 0,
		       "scenario file names are NN-NAME (NAME of letters, digits, - and _)");
	s->name = xstrdup(name);
	s->path = xstrdup(path);
	s->steps = actor_steps_load(path, spin_op_names, &s->nsteps);
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
