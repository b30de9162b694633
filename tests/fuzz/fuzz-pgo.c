// SPDX-License-Identifier: MIT
/*
 * The PGo folders over one run directory: the first line of the input
 * names the system (locksvc or dqueue), the rest is split at lines "--"
 * into the files trace-0-0.log, trace-1-0.log, ... (one per archetype
 * instance, as PGo's recorder writes them).
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
	else
		return -1;
	return fuzz_fold(system, fuzz_input_split("trace-%d-0.log",
						   data + skip, size - skip));
}
