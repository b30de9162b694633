// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../folders/folder.h"
#include "die.h"
#include "json.h"
#include "options.h"

int output_option(int opt, const char *arg, struct output_options *o)
{
	switch (opt) {
	case 'o':
		o->dir = arg;
		return 1;
	case 'F':
		if (!strcmp(arg, "event"))
			o->form = FORM_EVENT;
		else if (!strcmp(arg, "stream"))
			o->form = FORM_STREAM;
		else
			die(EXIT_USAGE, "--form: expected event or stream, not '%s'", arg);
		return 1;
	case 'J':
		o->style = json_style_parse(arg);
		if (o->style < 0)
			die(EXIT_USAGE, "--json: expected python, compact or canonical, not '%s'", arg);
		return 1;
	}
	return 0;
}

struct output_format output_format_for(const struct output_options *o,
				       const struct folder *f)
{
	struct output_format fmt = {
		.form = o->form >= 0 ? (enum window_form)o->form : f->form,
		.style = o->style,
	};
	return fmt;
}

void usage(const char *text, int help)
{
	fputs(text, help ? stdout : stderr);
	exit(help ? EXIT_OK : EXIT_USAGE);
}

cJSON *command_argv(int argc, char **argv)
{
	cJSON *a = json_arr();

	json_add(a, NULL, json_str("capture"));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--output=", 9) ||
		    (!strncmp(argv[i], "-o", 2) && argv[i][2]))
			continue;
		json_add(a, NULL, json_str(argv[i]));
	}
	return a;
}
