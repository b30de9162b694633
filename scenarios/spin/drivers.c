// SPDX-License-Identifier: MIT
/* The table of spin drivers (driver.h). */
#include <string.h>
#include "driver.h"

const struct spin_driver *const spin_drivers[] = {
	&spin_linux_driver,
	&spin_asterinas_driver,
	NULL,
};

const struct spin_driver *spin_driver_find(const char *name)
{
	for (size_t i = 0; spin_drivers[i]; i++)
		if (!strcmp(spin_drivers[i]->name, name))
			return spin_drivers[i];
	return NULL;
}
