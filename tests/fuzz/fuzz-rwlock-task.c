// SPDX-License-Identifier: MIT
/* The rwlock-task folder (the rwmutex task's granularity) over one input: a serial log of the rwlock guest. */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("rwlock-task", fuzz_input("run.log", data, size));
}
