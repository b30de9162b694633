// SPDX-License-Identifier: MIT
/* Raft's hit-count buckets of a try (coverage.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/proc.h"
#include "coverage.h"

/* Go's names: covcounters.HASH.PID.TIME, covmeta.HASH. */
static int is_counters(const char *name)
{
	return !strncmp(name, "covcounters.", 12);
}

static int is_meta(const char *name)
{
	return !strncmp(name, "covmeta.", 8);
}

/* The one file of the @kind in the GOCOVERDIR @dir of a try. */
static char *cover_file(const char *dir, int (*kind)(const char *))
{
	size_t n;
	char **names = list_dir(dir, kind, &n), *path;

	if (!names || n != 1)
		die(EXIT_CAPTURE_FAILED, "%s: %zu Go coverage %s files after a "
		    "try, not one", dir, names ? n : 0,
		    kind == is_meta ? "meta-data" : "counter");
	path = xasprintf("%s/%s", dir, names[0]);
	free_names(names, n);
	return path;
}

/* AFL's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128 and more. */
static unsigned bucket(uint32_t n)
{
	static const uint32_t floor[] = { 2, 3, 4, 8, 16, 32, 128 };
	unsigned b = 0;

	while (b < 7 && n >= floor[b])
		b++;
	return b;
}

size_t try_units(struct explorer *e, const char *dir)
{
	struct cap_err err;
	char *counters = cover_file(dir, is_counters);
	uint32_t *counts;
	size_t fresh = 0;

	if (!e->units) {
		char *meta = cover_file(dir, is_meta);

		if (gocover_meta(meta, e->package, &e->raft, &err))
			die_err(&err);
		e->units = xcalloc(e->raft.units + 1, 1);
		free(meta);
	}
	counts = xcalloc(e->raft.units + 1, sizeof(*counts));
	if (gocover_counters(&e->raft, counters, counts, &err))
		die_err(&err);
	unlink(counters);
	for (size_t u = 0; u < e->raft.units; u++) {
		unsigned char bit;

		if (!counts[u])
			continue;
		bit = 1u << bucket(counts[u]);
		e->nunits += !e->units[u];
		fresh += !(e->units[u] & bit);
		e->units[u] |= bit;
	}
	e->npairs += fresh;
	free(counts);
	free(counters);
	return fresh;
}

