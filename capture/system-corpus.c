// SPDX-License-Identifier: MIT
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../folders/folder.h"
#include "../audit.h"
#include "../command.h"
#include "../corpus.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "fold-inputs.h"

/*
 * Run name: the input's last path component without its extension;
 * "stdin" for "-".
 */
static char *run_name(const char *input)
{
	char *copy = xstrdup(strcmp(input, "-") ? input : "stdin");
	size_t n = strlen(copy);

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	char *name = xstrdup(basename(copy));
	char *dot = strrchr(name, '.');

	if (dot && dot != name)
		*dot = '\0';
	free(copy);
	return name;
}

cJSON *fold_inputs(const struct folder *f, struct corpus *c, int n,
		   char **inputs, struct output_format fmt)
{
	cJSON *runs = json_arr();
	char **names = xcalloc(n, sizeof(*names));

	for (int i = 0; i < n; i++) {
		names[i] = run_name(inputs[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				die(EXIT_USAGE, "inputs %s and %s would both be run '%s'",
				    inputs[j], inputs[i], names[i]);
	}
	for (int i = 0; i < n; i++)
		fold_input(f, c, names[i], inputs[i], fmt, runs);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return runs;
}

struct corpus *system_corpus_begin(const char *dir, const struct folder *f,
				   int argc, char **argv)
{
	struct corpus *c = corpus_begin(dir);
	cJSON *m = corpus_manifest(c);

	json_add(m, "toolkit", json_str("capture " CAPTURE_VERSION));
	json_add(m, "system", json_str(f->name));
	json_add(m, "command", command_argv(argc, argv));
	corpus_set_audit(c, audit_pass_begin(f));
	return c;
}

void system_corpus_commit(struct corpus *c, cJSON *runs, const char *dir)
{
	cJSON *m = corpus_manifest(c);

	json_add(m, "counts", run_counts(runs));
	json_add(m, "runs", runs);
	audit_corpus(c);
	corpus_commit(c);
	printf("%s\n", dir);
}

cJSON *run_counts(const cJSON *runs)
{
	cJSON *total = json_obj();
	const cJSON *r, *c;

	cJSON_ArrayForEach(r, runs) {
		cJSON_ArrayForEach(c, json_get(r, "windows"))
			json_count(total, c->string, (long long)c->valuedouble);
	}
	return total;
}
