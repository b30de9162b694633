// SPDX-License-Identifier: MIT
/*
 * The PGo folders over one run directory: the first line of the input
 * names the system (locksvc, dqueue or raftkvs), the rest is split at lines "--"
 * into one file per archetype instance, named for the process its records
 * are of (tests/fuzz/fuzz.h), as PGo's recorder names them.
 */
#include <string.h>
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *nl = memchr(data, '\n', size);
	const char *system;
	size_t skip;

	if (!nl)
		return -1;   /* not worth keeping in the corpus */
	skip = nl + 1 - data;
	if (skip == sizeof("locksvc") && !memcmp(data, "locksvc", 7))
		system = "locksvc";
	else if (skip == sizeof("dqueue") && !memcmp(data, "dqueue", 6))
		system = "dqueue";
	else if (skip == sizeof("raftkvs") && !memcmp(data, "raftkvs", 7))
		system = "raftkvs";
	else
		return -1;
	return fuzz_fold(system, fuzz_input_pgo(data + skip, size - skip));
}
