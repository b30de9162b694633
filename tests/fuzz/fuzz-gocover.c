// SPDX-License-Identifier: MIT
/*
 * Go's coverage file reader (scenarios/raft/gocover.c) over one
 * input: the first two bytes (little-endian) say how long the meta-data
 * file that follows is (cut to what there is), the rest is a counter
 * file.  The raft package is read from the first and its counters from
 * the second, as the exploration does.  Both readers return their
 * refusals, so a die() is a finding.
 */
#include <stdlib.h>
#include <string.h>
#include "scenarios/raft/gocover.h"
#include "scenarios/etcd/driver/etcd-harness.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The counters of @p in @path, into a buffer of its size. */
static int counters(const struct gocover_pkg *p, const char *path)
{
	uint32_t *counts = calloc(p->units + 1, sizeof(*counts));
	struct cap_err err = { 0 };
	int rc;

	if (!counts)
		abort();
	rc = gocover_counters(p, path, counts, &err);
	free(counts);
	return rc ? fuzz_refused(&err, FUZZ_CODE(EXIT_BAD_INPUT)) : 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct gocover_pkg p = { 0 };
	struct cap_err err = { 0 };
	size_t meta_len;
	const char *path;
	int rc;

	if (size < 2)
		return 0;
	meta_len = data[0] | (size_t)data[1] << 8;
	data += 2, size -= 2;
	if (meta_len > size)
		meta_len = size;
	path = fuzz_input("covmeta", data, meta_len);
	if (setjmp(fuzz_jmp))
		return fuzz_died(0);
	if (gocover_meta(path, ETCD_RAFT_PACKAGE, &p, &err))
		return fuzz_refused(&err, FUZZ_CODE(EXIT_BAD_INPUT));
	path = fuzz_input_also("covcounters", data + meta_len, size - meta_len);
	rc = counters(&p, path);
	gocover_pkg_free(&p);
	return rc;
}
