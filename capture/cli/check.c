// SPDX-License-Identifier: MIT
/* capture check SYSTEM INPUT...: every check of fold, nothing written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../fold.h"
#include "command.h"
#include "../corpus.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "../projection.h"
#include "../system-corpus.h"

static const char check_usage[] =
	"usage: capture check SYSTEM INPUT...\n"
	"       capture check CORPUS\n\n"
	"Run every check that 'capture fold' runs (causal order, self-consistency,\n"
	"framing, lost events) and write nothing.  Given a corpus, check the raw\n"
	"inputs its MANIFEST.json names.  Exit 0 when all pass; 3 for input that\n"
	"does not parse, 4 for a failed check, 6 for lost events (file:line on\n"
	"stderr).\n";

/* A run's name and input must be strings, each run's its own. */
static const char *run_input(const char *path, const cJSON *runs,
			     const cJSON *r)
{
	const char *name = json_get_str(r, "name"), *in = json_get_str(r, "input");
	const cJSON *o;

	if (!in || !name)
		die_at(EXIT_BAD_INPUT, path, 0, "a run without \"%s\"",
		       in ? "name" : "input");
	for (o = runs->child; o != r; o = o->next)
		if (!strcmp(name, json_get_str(o, "name")) ||
		    !strcmp(in, json_get_str(o, "input")))
			die_at(EXIT_BAD_INPUT, path, 0, "run %s (%s) is there "
			       "twice", name, in);
	return in;
}

/*
 * The system and inputs a corpus's manifest names (inputs inside it
 * resolved).  What is wrong with the manifest is bad input naming it.
 */
static const struct folder *corpus_inputs(const char *dir, int *n, char ***inputs)
{
	char *path = xasprintf("%s/MANIFEST.json", dir);
	char *text = read_file(path, NULL);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	const cJSON *r, *runs;
	const char *system = json_get_str(m, "system");
	const struct system *s = m ? corpus_system(dir, m, path) : NULL;
	const struct folder *f = s ? s->folder : NULL;

	if (!text)
		die_at(EXIT_BAD_INPUT, path, 0, "cannot read: %s", strerror(errno));
	free(text);
	if (!m || !system)
		die_at(EXIT_BAD_INPUT, path, 0, "not a capture manifest");
	if (!f)
		die_at(EXIT_BAD_INPUT, path, 0, "unknown system '%s'", system);
	runs = manifest_runs(m, path);
	*n = 0;
	*inputs = xcalloc(cJSON_GetArraySize(runs), sizeof(**inputs));
	cJSON_ArrayForEach(r, runs) {
		const char *in = run_input(path, runs, r);
		char *inside = xasprintf("%s/%s", dir, in);

		(*inputs)[(*n)++] = file_exists(inside) ? inside : xstrdup(in);
		if (!file_exists(inside))
			free(inside);
	}
	cJSON_Delete(m);
	free(path);
	return f;
}

int cmd_check(int argc, char **argv)
{
	static const struct opt options[] = { OPT_HELP(), OPT_END() };
	const struct opt_command cmd = { check_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);
	struct output_options out = OUTPUT_OPTIONS_INIT;
	const struct folder *f;
	cJSON *runs, *counts, *c;
	long long total = 0;

	if (argc - first == 1) {
		char **inputs;
		int n;

		f = corpus_inputs(argv[first], &n, &inputs);
		runs = fold_inputs(f, NULL, n, inputs, output_format_for(&out, f));
		for (int i = 0; i < n; i++)
			free(inputs[i]);
		free(inputs);
	} else if (argc - first >= 2) {
		f = system_lookup(argv[first])->folder;
		runs = fold_inputs(f, NULL, argc - first - 1, argv + first + 1,
				   output_format_for(&out, f));
	} else {
		opt_usage(&cmd, 0);
	}
	counts = run_counts(runs);
	cJSON_ArrayForEach(c, counts)
		total += (long long)c->valuedouble;
	printf("%s: %d run(s), %lld windows, all checks passed\n", f->name,
	       cJSON_GetArraySize(runs), total);
	cJSON_Delete(counts);
	cJSON_Delete(runs);
	return EXIT_OK;
}
