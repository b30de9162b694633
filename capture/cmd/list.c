// SPDX-License-Identifier: MIT
/* capture list: the systems, their actions and their scenarios. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../folders/folder.h"
#include "../command.h"
#include "../die.h"
#include "../options.h"

static const char list_usage[] =
	"usage: capture list\n\n"
	"List the systems capture folds, their target actions, and the scenario\n"
	"files found under scenarios/SYSTEM/.\n";

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scenario files are named NN-name; list them in that order. */
static void list_scenarios(const char *system)
{
	char *dir = xasprintf("%s/scenarios/%s", capture_home(), system);
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	free(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *dash = strchr(de->d_name, '-');

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || !dash ||
		    strchr(de->d_name, '.'))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	if (n)
		printf("  scenarios:");
	for (size_t i = 0; i < n; i++) {
		printf(" %s", strchr(names[i], '-') + 1);
		free(names[i]);
	}
	if (n)
		printf("\n");
	free(names);
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
