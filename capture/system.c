// SPDX-License-Identifier: MIT
/* Looking systems up in the table (system.h). */
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "system.h"

static const struct system no_systems[] = { { NULL, NULL, NULL } };
static const struct system *table = no_systems;

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
	return NULL;
}

char *systems_known(void)
{
	char *known = xstrdup("");

	for (const struct system *s = table; s->folder; s++)
		known = str_append(known, s == table ? "" : ", ", s->folder->name);
	return known;
}

const struct system *system_lookup(const char *name)
{
	const struct system *s = system_find(name);

	if (!s)
		die(EXIT_USAGE, "unknown system '%s' (known: %s)", name,
		    systems_known());
	return s;
}
