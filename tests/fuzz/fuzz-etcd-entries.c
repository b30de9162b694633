// SPDX-License-Identifier: MIT
/* The etcd-entries folder (etcd with each log as its entries' terms) over one input: etcd's with_tla trace. */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("etcd-entries", fuzz_input("run.log", data, size));
}
