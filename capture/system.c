// SPDX-License-Identifier: MIT
/* Looking systems up in the table (system.h). */
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "system.h"

static const struct system no_systems[] = { { NULL, NULL, NULL } };
static const struct system *table = no_systems;
static const struct system *projected;

void system_table_set(const struct system *t)
{
	table = t;
}

const struct system *system_table(void)
{
	return table;
}

const struct system *system_find(const char *name)
{
	for (const struct system *s = table; s->folder; s++)
		if (!strcmp(s->folder->name, name))
			return s;
	return projected && !strcmp(projected->folder->name, name) ? projected : NULL;
}

void system_set_projected(const struct system *s)
{
	projected = s;
}

char *systems_known(void)
{
	char *known = xstrdup("");

	for (const struct system *s = table; s->folder; s++)
		known = str_append(known, s == table ? "" : ", ", s->folder->name);
	return known;
}
