// SPDX-License-Identifier: MIT
/* capture list: the systems, their actions and their scenarios. */
#include <stdio.h>
#include <stdlib.h>
#include "../fold.h"
#include "command.h"
#include "../die.h"
#include "../home.h"
#include "../options.h"
#include "../proc.h"
#include "../scenario.h"

static const char list_usage[] =
	"usage: capture list\n\n"
	"List the systems capture folds, their target actions, and the scenario\n"
	"files found under scenarios/SYSTEM/.\n";

/* A live system's scenario files, in NN order. */
static void list_scenarios(const struct system *s)
{
	char *dir;
	struct scenario_file *v;
	size_t n = 0;

	if (!s->scenarios)
		return;
	dir = xasprintf("%s/%s", capture_home(), s->scenarios);
	v = scenario_list(dir, &n);
	free(dir);
	if (n)
		printf("  scenarios:");
	for (size_t i = 0; i < n; i++)
		printf(" %s", v[i].name);
	if (n)
		printf("\n");
	if (v)
		scenario_files_free(v, n);
}

int cmd_list(int argc, char **argv)
{
	static const struct opt options[] = { OPT_HELP(), OPT_END() };
	const struct opt_command cmd = { list_usage, options, NULL, 0 };

	if (parse_options(&cmd, argc, argv) < argc)
		opt_usage(&cmd, 0);
	for (const struct system *s = systems; s->folder; s++) {
		const struct folder *f = s->folder;

		printf("%s: %s\n  actions:", f->name, f->summary);
		for (int a = 0; f->actions[a]; a++)
			printf(" %s", f->actions[a]);
		printf("\n  window form: %s\n", window_form_name(f->form));
		list_scenarios(s);
	}
	return EXIT_OK;
}
