// SPDX-License-Identifier: MIT
/* rwlock scenario files (see steps.h). */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../folders/rwlock/rwlock-ops.h"
#include "steps.h"

/* module/rwlock.c's op letters, by its enum op. */
const char rwlock_op_letters[] = "rtuwxv";

void rwlock_scenario_load(struct rwlock_scenario *s, const char *name,
			  const char *run, const char *path)
{
	s->name = xstrdup(name);
	s->run = xstrdup(run);
	s->path = xstrdup(path);
	s->steps = actor_steps_load(path, rwlock_op_names, &s->nsteps);
}

void rwlock_scenario_free(struct rwlock_scenario *s)
{
	free(s->name);
	free(s->run);
	free(s->path);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}
