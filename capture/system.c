// SPDX-License-Identifier: MIT
/* Looking systems up in the table (system.h). */
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "system.h"

const struct system *system_find(const char *name)
{
	for (const struct system *s = systems; s->folder; s++)
		if (!strcmp(s->folder->name, name))
			return s;
	return NULL;
}

char *systems_known(void)
{
	char *known = xstrdup("");

	for (const struct system *s = systems; s->folder; s++)
		known = str_append(known, s == systems ? "" : ", ", s->folder->name);
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
