// SPDX-License-Identifier: MIT
/*
 * The raftkvs-task folder (by variable, docs/task-projections.md) over one
 * PGo run directory: the input split at lines "--" into one file per
 * archetype instance, as fuzz-pgo splits what follows its system line.
 */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("raftkvs-task", fuzz_input_pgo(data, size));
}
