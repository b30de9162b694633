// SPDX-License-Identifier: MIT
/* The etcd-task folder (etcd by variable, the received message as input) over one input: etcd's with_tla trace. */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return fuzz_fold("etcd-task", fuzz_input("run.log", data, size));
}
