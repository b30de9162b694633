// SPDX-License-Identifier: MIT
/* The etcd folder over one input: etcd's with_tla trace (NDJSON, one event a line). */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("etcd", fuzz_input("run.log", data, size));
}
