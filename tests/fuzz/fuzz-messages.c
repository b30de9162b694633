// SPDX-License-Identifier: MIT
/*
 * The causal check of a live etcd run (scenarios/etcd/driver/messages.c)
 * over one input: the raw event stream of `capture etcd --live`, every
 * Receive* matched to an earlier Send* of the same message.
 */
#include <cJSON.h>
#include "scenarios/etcd/driver/messages.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Reachable while the check may die: freed by the next input. */
static cJSON *manifest;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *in = fuzz_input("live.ndjson", data, size);

	cJSON_Delete(manifest);
	manifest = cJSON_CreateObject();
	if (setjmp(fuzz_jmp))
		return fuzz_died(FUZZ_CODE(EXIT_BAD_INPUT) |
				 FUZZ_CODE(EXIT_CHECK_FAILED));
	etcd_check_messages(in, in, manifest);
	return 0;
}
