// SPDX-License-Identifier: MIT
/*
 * A spec's projection (capture/projection.c, docs/projection.md) and its
 * fold (capture/projection-fold.c) over one input: the spec, a line "--",
 * then the events to fold.  The parser returns its refusals: exit 3
 * naming the spec; the fold may die with 3, 4 or 6 naming the events.
 */
#include <stdlib.h>
#include <string.h>
#include "capture/projection.h"
#include "capture/system.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Where the line "--" that ends the spec starts, or @size. */
static size_t spec_end(const unsigned char *data, size_t size)
{
	for (size_t i = 0; i + 2 <= size; i++)
		if ((i == 0 || data[i - 1] == '\n') && data[i] == '-' && data[i + 1] == '-' &&
		    (i + 2 == size || data[i + 2] == '\n'))
			return i;
	return size;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t n = spec_end(data, size), skip = n + 3 < size ? n + 3 : size;
	const char *spec = fuzz_input("spec.probes", data, n);
	char *events = strdup(fuzz_input_also("events.ndjson", data + skip, size - skip));
	const struct system *sys;
	struct cap_err err = { 0 };
	int rc;

	projection_forget();
	if (setjmp(fuzz_jmp)) {
		free(events);
		return fuzz_died(0);
	}
	if (projection_load(spec, &sys, &err)) {
		free(events);
		return fuzz_refused(&err, FUZZ_CODE(EXIT_BAD_INPUT));
	}
	rc = sys ? fuzz_fold(sys->folder->name, events) : 0;
	free(events);
	return rc;
}
