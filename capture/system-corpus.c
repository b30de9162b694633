// SPDX-License-Identifier: MIT
#include <stdio.h>
#include "audit.h"
#include "corpus.h"
#include "json.h"
#include "options.h"
#include "projection.h"
#include "system.h"
#include "system-corpus.h"
#include "version.h"

/* The manifest opens with toolkit, system (unless NULL), command. */
static struct corpus *begin(const char *dir, const char *system, int argc,
			    char **argv)
{
	struct corpus *c = corpus_begin(dir);
	cJSON *m = corpus_manifest(c);

	json_add(m, "toolkit", json_str("capture " CAPTURE_VERSION));
	if (system)
		json_add(m, "system", json_str(system));
	json_add(m, "command", command_argv(argc, argv));
	return c;
}

struct corpus *command_corpus_begin(const char *dir, int argc, char **argv)
{
	return begin(dir, NULL, argc, argv);
}

struct corpus *system_corpus_begin(const char *dir, const struct folder *f,
				   int argc, char **argv)
{
	struct corpus *c = begin(dir, f->name, argc, argv);

	projection_record(c, f);
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
