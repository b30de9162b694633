/* SPDX-License-Identifier: MIT */
/* What fold and check share: looking up a system, folding a list of inputs. */
#ifndef CAPTURE_FOLD_INPUTS_H
#define CAPTURE_FOLD_INPUTS_H

#include <cJSON.h>
#include "../windows.h"

struct folder;
struct corpus;

/* The folder called @name, or die with EXIT_USAGE listing the known ones. */
const struct folder *folder_lookup(const char *name);
/* Fold every input as one run; returns the runs array for the manifest. */
cJSON *fold_inputs(const struct folder *f, struct corpus *c, int n,
		   char **inputs, struct output_format fmt);
/* Windows per action, summed over @runs. */
cJSON *run_counts(const cJSON *runs);

#endif
