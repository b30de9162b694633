// SPDX-License-Identifier: MIT
/*
 * The dqueue-task folder (every label a step, docs/task-projections.md) over one
 * PGo run directory: the input split at lines "--" into one file per
 * archetype instance, as fuzz-pgo splits what follows its system line.
 */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("dqueue-task", fuzz_input_pgo(data, size));
}
