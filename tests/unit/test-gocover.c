// SPDX-License-Identifier: MIT
/*
 * The reader of Go's coverage files (scenarios/raft/gocover.c) on
 * real ones: tests/etcd/gocover/ holds the meta-data and counter
 * files of the with_tla harness built with "go build -cover
 * -covermode=set -coverpkg=.,go.etcd.io/raft/v3" replaying
 * scenarios/etcd/02-proposal under GOCOVERDIR (Go 1.26.8), and Go's own
 * reading of them, "go tool covdata debugdump" cut to the raft package:
 * the reader must see the units Go's tool sees, the counters it counts,
 * and refuse the same files corrupted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/die.h"
#include "capture/proc.h"
#include "scenarios/raft/gocover.h"
#include "tests/unit/unit.h"

#define DIR "tests/etcd/gocover/"
#define RAFT "go.etcd.io/raft/v3"

/* Go's tool's counter per unit, in its order (function, then unit). */
static uint32_t *go_dump(size_t *units, size_t *funcs)
{
	FILE *f = fopen(DIR "debugdump.txt", "r");
	char line[512];
	uint32_t *hit = NULL;

	*units = *funcs = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *eq = strrchr(line, '=');

		if (!strncmp(line, "Func: ", 6))
			++*funcs;
		if (line[0] < '0' || line[0] > '9' || !eq)
			continue;
		hit = xrealloc(hit, (*units + 1) * sizeof(*hit));
		hit[(*units)++] = (uint32_t)strtoul(eq + 1, NULL, 10);
	}
	if (f)
		fclose(f);
	return hit;
}

static void test_real(const struct gocover_pkg *p)
{
	size_t units, funcs, differ = 0, covered = 0;
	uint32_t *want = go_dump(&units, &funcs);
	uint32_t *counts = xcalloc(p->units + 1, sizeof(*counts));
	struct cap_err err = { 0 };

	if (p->nfuncs != funcs || p->units != units) {
		fail("the raft package as Go's tool sees it", "%u functions, %zu "
		     "units; covdata: %zu, %zu", p->nfuncs, p->units, funcs, units);
		goto out;
	}
	pass("the raft package as Go's tool sees it");
	if (gocover_counters(p, DIR "covcounters", counts, &err)) {
		fail("read a real counter file", "%s", err.msg);
		goto out;
	}
	for (size_t u = 0; u < units; u++) {
		differ += counts[u] != want[u];
		covered += counts[u] != 0;
	}
	if (differ || !covered)
		fail("the counters Go's tool counts", "%zu units differ, %zu "
		     "covered", differ, covered);
	else
		pass("the counters Go's tool counts");
out:
	free(counts);
	free(want);
}

/* A copy of fixture @name with @len bytes of @at replaced by @bytes (or cut there: NULL). */
static char *corrupt(const char *tmp, const char *name, size_t at,
		     const void *bytes, size_t len)
{
	char *src = xasprintf(DIR "%s", name), *dst = xasprintf("%s/%s", tmp, name);
	size_t n;
	char *data = read_file(src, &n);

	if (!data)
		die(EXIT_CAPTURE_FAILED, "%s: cannot read", src);
	if (bytes)
		memcpy(data + at, bytes, len);
	write_file(dst, data, bytes ? n : at);
	free(data);
	free(src);
	return dst;
}

/* The counter file @path is refused with a message containing @what. */
static void refused(const char *name, const struct gocover_pkg *p,
		    const char *path, const char *what)
{
	uint32_t *counts = xcalloc(p->units + 1, sizeof(*counts));
	struct cap_err err = { 0 };

	if (!gocover_counters(p, path, counts, &err))
		fail(name, "accepted");
	else if (err.code != EXIT_BAD_INPUT || !strstr(err.msg, what) ||
		 !strstr(err.msg, path))
		fail(name, "exit %d, \"%s\" (want 3, the file and \"%s\")",
		     err.code, err.msg, what);
	else
		pass(name);
	free(counts);
}

static void test_corrupt(const struct gocover_pkg *p, const char *tmp)
{
	const unsigned char two[4] = { 2, 0, 0, 0 }, x = 'X', raw = 3, more = 0x81;
	size_t n;
	char *whole = read_file(DIR "covcounters", &n), *f;
	struct gocover_pkg other = *p;

	f = corrupt(tmp, "covcounters", 1, &x, 1);
	refused("a counter file with a bad magic is refused", p, f, "bad magic");
	free(f);
	f = corrupt(tmp, "covcounters", 4, two, 4);
	refused("a counter file of version 2 is refused", p, f, "version 2");
	free(f);
	f = corrupt(tmp, "covcounters", 24, &raw, 1);
	refused("an unknown counter flavor is refused", p, f, "flavor");
	free(f);
	f = corrupt(tmp, "covcounters", n - 40, NULL, 0);
	refused("a truncated counter file is refused", p, f, "counter file");
	free(f);
	f = corrupt(tmp, "covcounters", n - 17, &more, 1);
	refused("counters overrunning the footer are refused", p, f, "byte");
	free(f);
	other.hash[0] ^= 1;
	refused("another binary's counter file is refused", &other,
		DIR "covcounters", "another binary");
	free(whole);
}

static void test_meta(const char *tmp)
{
	const unsigned char two[4] = { 2, 0, 0, 0 };
	struct gocover_pkg p;
	struct cap_err err = { 0 };
	char *f = corrupt(tmp, "covmeta", 4, two, 4);

	check("a meta-data file of version 2 is refused",
	      gocover_meta(f, RAFT, &p, &err) && strstr(err.msg, "version 2"),
	      err.msg);
	free(f);
	f = corrupt(tmp, "covmeta", 2000, NULL, 0);
	check("a truncated meta-data file is refused",
	      gocover_meta(f, RAFT, &p, &err) && strstr(err.msg, "total length"),
	      err.msg);
	free(f);
	check("a package the binary did not cover is refused by name",
	      gocover_meta(DIR "covmeta", "go.etcd.io/raft/v3/quorum", &p, &err) &&
	      strstr(err.msg, "no package go.etcd.io/raft/v3/quorum"), err.msg);
}

/* Little-endian @n bytes of @b at @at. */
static uint64_t le_at(const unsigned char *b, size_t at, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | b[at + n];
	return v;
}

/*
 * A unit count the package cannot hold (found by tests/fuzz/fuzz-gocover:
 * the caller allocated a counter for each, 15 GB) is refused.
 */
static void test_units(const struct gocover_pkg *p, const char *tmp)
{
	/* 2^28 units (ULEB128): no overflow, a 1 GB counter array. */
	const unsigned char huge[5] = { 0x80, 0x80, 0x80, 0x80, 0x01 };
	struct gocover_pkg q;
	struct cap_err err = { 0 };
	size_t n;
	unsigned char *b = (unsigned char *)read_file(DIR "covmeta", &n);
	/* The package's blob (offsets table after the 56-byte header)... */
	size_t base = le_at(b, 56 + 8 * (size_t)p->index, 8);
	/* ...and its first function (offsets after the 44-byte header). */
	size_t fn = base + le_at(b, base + 44, 4);
	char *f = corrupt(tmp, "covmeta", fn, huge, 5);

	if (!gocover_meta(f, RAFT, &q, &err)) {
		fail("a function with more units than its package holds is "
		     "refused", "accepted, %zu units", q.units);
		gocover_pkg_free(&q);
	} else {
		check("a function with more units than its package holds is "
		      "refused", strstr(err.msg, "more units than the function "
		      "holds") != NULL, err.msg);
	}
	free(f);
	free(b);
}

int main(void)
{
	struct gocover_pkg p;
	struct cap_err err = { 0 };
	char tmp[] = "/tmp/test-gocover-XXXXXX";

	if (!mkdtemp(tmp))
		die(EXIT_CAPTURE_FAILED, "mkdtemp failed");
	if (gocover_meta(DIR "covmeta", RAFT, &p, &err)) {
		fail("read a real meta-data file", "%s", err.msg);
	} else {
		pass("read a real meta-data file");
		test_real(&p);
		test_corrupt(&p, tmp);
		test_units(&p, tmp);
		gocover_pkg_free(&p);
	}
	test_meta(tmp);
	remove_tree(tmp);
	return unit_status();
}
