// SPDX-License-Identifier: MIT
/* The rwlock folder over one input: a serial log of the rwlock guest (CAPTURE BEGIN, event lines, END; console noise between). */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("rwlock", fuzz_input("run.log", data, size));
}
