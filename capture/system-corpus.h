/* SPDX-License-Identifier: MIT */
/*
 * What the corpus-writing commands share: folding a list of inputs,
 * starting and finishing a system's corpus.
 */
#ifndef CAPTURE_FOLD_INPUTS_H
#define CAPTURE_FOLD_INPUTS_H

#include <cJSON.h>
#include "../windows.h"

struct folder;
struct corpus;

/* Fold every input as one run; returns the runs array for the manifest. */
cJSON *fold_inputs(const struct folder *f, struct corpus *c, int n,
		   char **inputs, struct output_format fmt);
/* Windows per action, summed over @runs. */
cJSON *run_counts(const cJSON *runs);

/* Start the corpus @dir of @f; its manifest opens with toolkit, system, command. */
struct corpus *system_corpus_begin(const char *dir, const struct folder *f,
				   int argc, char **argv);
/* Counts and @runs into the manifest, audit.json, commit, print @dir. */
void system_corpus_commit(struct corpus *c, cJSON *runs, const char *dir);

#endif
