// SPDX-License-Identifier: MIT
/* capture list: the systems, their actions and their scenarios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../folders/folder.h"
#include "../command.h"
#include "../die.h"
#include "../options.h"
#include "../proc.h"

static const char list_usage[] =
	"usage: capture list\n\n"
	"List the systems capture folds, their target actions, and the scenario\n"
	"files found under scenarios/SYSTEM/.\n";

/* Scenario files are named NN-name; list them in that order. */
static void list_scenarios(const char *system)
{
	char *dir = xasprintf("%s/scenarios/%s", capture_home(), system);
	size_t n;
	char **names = list_dir(dir, is_scenario_file, &n);

	free(dir);
	if (n)
		printf("  scenarios:");
	for (size_t i = 0; i < n; i++) {
		const char *name;

		scenario_file_name(names[i], &name);
		printf(" %s", name);
	}
	if (n)
		printf("\n");
	if (names)
		free_names(names, n);
}

int cmd_list(int argc, char **argv)
{
	if (argc > 1)
		usage(list_usage, !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
	for (int i = 0; folders[i]; i++) {
		const struct folder *f = folders[i];

		printf("%s: %s\n  actions:", f->name, f->summary);
		for (int a = 0; f->actions[a]; a++)
			printf(" %s", f->actions[a]);
		printf("\n  window form: %s\n",
		       f->form == FORM_EVENT ? "event" : "stream");
		list_scenarios(f->name);
	}
	return EXIT_OK;
}
