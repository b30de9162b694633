// SPDX-License-Identifier: MIT
/* Looking systems up in the table (system.h). */
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "proc.h"
#include "projection.h"
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
	return projection_system(name);
}

/* @name names a spec file (a path, or a *.probes file) with a projection. */
static const struct system *spec_system(const char *name)
{
	const struct system *s;
	struct cap_err err;

	if (!strchr(name, '/') && !has_suffix(name, ".probes"))
		return NULL;
	if (!file_exists(name))
		die(EXIT_USAGE, "%s: no such spec file", name);
	if (projection_load(name, &s, &err))
		die_err(&err);
	if (!s)
		die(EXIT_USAGE, "%s declares no projection (no 'projection NAME' "
		    "line: docs/projection.md)", name);
	return s;
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
		s = spec_system(name);
	if (!s)
		die(EXIT_USAGE, "unknown system '%s' (known: %s)", name,
		    systems_known());
	return s;
}
