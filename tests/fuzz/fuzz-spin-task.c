// SPDX-License-Identifier: MIT
/* The spin-task folder (SysMoBench's task granularity) over one input: a serial log of the spin guest. */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("spin-task", fuzz_input("run.log", data, size));
}
