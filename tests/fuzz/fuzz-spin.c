// SPDX-License-Identifier: MIT
/* The spin folder over one input: a serial log of the spin guest (CAPTURE BEGIN, event lines, END; console noise between). */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("spin", fuzz_input("run.log", data, size));
}
