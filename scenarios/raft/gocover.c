// SPDX-License-Identifier: MIT
/*
 * A strict reader of Go's coverage files (gocover.h), after the layout
 * internal/coverage/defs.go documents: little-endian fixed fields, ULEB128
 * varints, string tables of a count then (length, bytes) pairs.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/proc.h"
#include "gocover.h"

#define META_HEADER 56      /* MetaFileHeader */
#define SYMBOL_HEADER 44    /* MetaSymbolHeader, CovMetaHeaderSize */
#define COUNTER_HEADER 32   /* CounterFileHeader */
#define SEGMENT_HEADER 16   /* CounterSegmentHeader */
#define FOOTER 16           /* CounterFileFooter */

enum { FLAVOR_RAW = 1, FLAVOR_ULEB = 2 };   /* CounterFlavor */

static const unsigned char meta_magic[4] = { 0, 'c', 'v', 'm' };
static const unsigned char counter_magic[4] = { 0, 'c', 'w', 'm' };

/* A cursor over a whole file; the first failure is kept in @err. */
struct cursor {
	const unsigned char *b;
	size_t len, at;
	const char *path;
	struct cap_err *err;
	int failed;
};

static int bad(struct cursor *c, const char *what)
{
	if (!c->failed)
		cap_fail(c->err, EXIT_BAD_INPUT, "%s: byte %zu: %s", c->path,
			 c->at, what);
	c->failed = 1;
	return -1;
}

static int need(struct cursor *c, size_t n)
{
	if (c->failed || n > c->len || c->at > c->len - n)
		return bad(c, "truncated");
	return 0;
}

static uint64_t le(struct cursor *c, int n)
{
	uint64_t v = 0;

	if (need(c, n))
		return 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | c->b[c->at + i];
	c->at += n;
	return v;
}

/* A ULEB128 value that fits 32 bits, as every one of these formats is. */
static uint32_t uleb(struct cursor *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 35; shift += 7) {
		if (need(c, 1))
			return 0;
		v |= (uint64_t)(c->b[c->at] & 0x7f) << shift;
		if (!(c->b[c->at++] & 0x80)) {
			if (v > UINT32_MAX)
				break;
			return (uint32_t)v;
		}
	}
	bad(c, "ULEB128 value above 32 bits");
	return 0;
}

static void skip(struct cursor *c, size_t n)
{
	if (!need(c, n))
		c->at += n;
}

static int magic(struct cursor *c, const unsigned char m[4], const char *what)
{
	if (need(c, 4))
		return -1;
	if (memcmp(c->b + c->at, m, 4)) {
		if (!c->failed)
			cap_fail(c->err, EXIT_BAD_INPUT, "%s: not a Go coverage "
				 "%s file (bad magic)", c->path, what);
		c->failed = 1;
		return -1;
	}
	c->at += 4;
	return 0;
}

static int version1(struct cursor *c, const char *what)
{
	uint64_t v = le(c, 4);

	if (c->failed || v == 1)
		return c->failed ? -1 : 0;
	cap_fail(c->err, EXIT_BAD_INPUT, "%s: Go coverage %s file version %llu "
		 "(this reader knows version 1)", c->path, what,
		 (unsigned long long)v);
	c->failed = 1;
	return -1;
}

static int open_file(struct cursor *c, const char *path, struct cap_err *err)
{
	*c = (struct cursor){ .path = path, .err = err };
	c->b = (unsigned char *)read_file(path, &c->len);
	if (!c->b)
		return cap_fail(err, EXIT_BAD_INPUT, "%s: cannot read", path);
	return 0;
}

/* Whether string @idx of the table at the cursor is @want. */
static int string_is(struct cursor *c, uint32_t idx, const char *want)
{
	uint32_t n = uleb(c);
	int same = 0;

	if (idx >= n && !c->failed)
		return bad(c, "string index out of the package's table");
	for (uint32_t i = 0; i <= idx && !c->failed; i++) {
		uint32_t len = uleb(c);

		if (need(c, len))
			return -1;
		same = i == idx && len == strlen(want) &&
		       !memcmp(c->b + c->at, want, len);
		c->at += len;
	}
	return c->failed ? -1 : same;
}

/* The units of each function of the package blob at @base. */
static int package_units(struct cursor *c, size_t base, size_t blob,
			 struct gocover_pkg *p)
{
	p->first = xcalloc((size_t)p->nfuncs + 1, sizeof(*p->first));
	for (uint32_t f = 0; f < p->nfuncs && !c->failed; f++) {
		uint32_t off, units;

		c->at = base + SYMBOL_HEADER + 4 * (size_t)f;
		off = (uint32_t)le(c, 4);
		if (c->failed)
			break;
		if (off < SYMBOL_HEADER || off >= blob)
			return bad(c, "function offset outside its package");
		c->at = base + off;
		units = uleb(c);
		/*
		 * A count the blob cannot hold would have the caller
		 * allocate for it: after it come the name and file (a
		 * ULEB each), five ULEBs a unit and the literal flag; and
		 * Go writes each function apart, so all units fit too.
		 */
		if (!c->failed && (base + blob - c->at < 3 ||
				   units > (base + blob - c->at - 3) / 5))
			return bad(c, "more units than the function holds");
		p->first[f + 1] = p->first[f] + units;
		if (p->first[f + 1] < units || p->first[f + 1] > blob / 5)
			return bad(c, "more units than the package holds");
	}
	p->units = p->first[p->nfuncs];
	return c->failed ? -1 : 0;
}

/* Package @i of the meta-data file: 1 and @p filled if it is @pkgpath. */
static int meta_package(struct cursor *c, uint64_t entries, uint64_t i,
			const char *pkgpath, struct gocover_pkg *p)
{
	size_t base, blob;
	uint32_t path_idx, nfuncs;
	int is;

	c->at = META_HEADER + 8 * i;
	base = le(c, 8);
	c->at = META_HEADER + 8 * (entries + i);
	blob = le(c, 8);
	if (c->failed)
		return -1;
	if (base > c->len || blob > c->len - base || blob < SYMBOL_HEADER)
		return bad(c, "package outside the file");
	c->at = base;
	if (le(c, 4) != blob)
		return bad(c, "package length differs from the offsets table");
	skip(c, 4);
	path_idx = (uint32_t)le(c, 4);
	skip(c, 4 + 16 + 4 + 4);
	nfuncs = (uint32_t)le(c, 4);
	if (!c->failed && nfuncs > (blob - SYMBOL_HEADER) / 4)
		return bad(c, "more functions than the package holds");
	skip(c, 4 * (size_t)nfuncs);
	is = string_is(c, path_idx, pkgpath);
	if (is <= 0)
		return is;
	p->index = (uint32_t)i;
	p->nfuncs = nfuncs;
	return package_units(c, base, blob, p) ? -1 : 1;
}

int gocover_meta(const char *path, const char *pkgpath, struct gocover_pkg *p,
		 struct cap_err *err)
{
	struct cursor c;
	uint64_t entries;
	int found = 0;

	*p = (struct gocover_pkg){ 0 };
	if (open_file(&c, path, err))
		return -1;
	if (!magic(&c, meta_magic, "meta-data") && !version1(&c, "meta-data")) {
		if (le(&c, 8) != c.len && !c.failed)
			bad(&c, "total length differs from the file's");
		entries = le(&c, 8);
		if (!need(&c, 16))
			memcpy(p->hash, c.b + c.at, 16);
		skip(&c, 16 + 4 + 4 + 1);
		if (!need(&c, 7) && c.b[c.at] != 1)
			bad(&c, "counter granularity is not per block");
		if (!c.failed && entries > (c.len - META_HEADER) / 16)
			bad(&c, "more packages than the file holds");
		for (uint64_t i = 0; i < entries && !c.failed && !found; i++)
			found = meta_package(&c, entries, i, pkgpath, p) > 0;
		if (!found && !c.failed)
			cap_fail(err, EXIT_BAD_INPUT, "%s: no package %s (the "
				 "binary was built without -coverpkg=%s)", path,
				 pkgpath, pkgpath);
	}
	free((void *)c.b);
	if (found && !c.failed)
		return 0;
	gocover_pkg_free(p);
	return -1;
}

void gocover_pkg_free(struct gocover_pkg *p)
{
	free(p->first);
	p->first = NULL;
}

/* One value of the counter section, in the file's flavor. */
static uint32_t counter_value(struct cursor *c, int flavor, int big)
{
	uint32_t v;

	if (flavor == FLAVOR_ULEB)
		return uleb(c);
	v = (uint32_t)le(c, 4);
	return big ? __builtin_bswap32(v) : v;
}

/* The header: the flavor and byte order, or -1. */
static int counter_header(struct cursor *c, const struct gocover_pkg *p,
			  int *big)
{
	int flavor;

	if (magic(c, counter_magic, "counter") || version1(c, "counter"))
		return -1;
	if (need(c, 16 + 2))
		return -1;
	if (memcmp(c->b + c->at, p->hash, 16))
		return bad(c, "written by another binary (its meta-data hash "
			   "differs)");
	c->at += 16;
	flavor = c->b[c->at++];
	*big = c->b[c->at++];
	if ((flavor != FLAVOR_RAW && flavor != FLAVOR_ULEB) || *big > 1)
		return bad(c, "unknown counter flavor");
	skip(c, 6);
	return c->failed ? -1 : flavor;
}

/* The footer: one segment, one run. */
static int counter_footer(struct cursor *c)
{
	size_t at = c->at;
	uint64_t segments;

	if (c->len < COUNTER_HEADER + SEGMENT_HEADER + FOOTER)
		return bad(c, "truncated");
	c->at = c->len - FOOTER;
	if (magic(c, counter_magic, "counter"))
		return -1;
	skip(c, 4);
	segments = le(c, 4);
	if (!c->failed && segments != 1)
		return bad(c, "not one segment (a merged file, not one run's)");
	c->at = at;
	return c->failed ? -1 : 0;
}

/* The functions of the one segment, from its header on. */
static void counter_segment(struct cursor *c, const struct gocover_pkg *p,
			    int flavor, int big, uint32_t *counts)
{
	uint64_t funcs = le(c, 8);
	size_t strtab = le(c, 4), args = le(c, 4);

	skip(c, strtab);
	skip(c, args);
	skip(c, (4 - c->at % 4) % 4);
	for (uint64_t i = 0; i < funcs && !c->failed; i++) {
		uint32_t n = counter_value(c, flavor, big);
		uint32_t pkg = counter_value(c, flavor, big);
		uint32_t f = counter_value(c, flavor, big);
		int ours = pkg == p->index;

		if (!c->failed && ours &&
		    (f >= p->nfuncs || n != p->first[f + 1] - p->first[f])) {
			bad(c, "function unknown to the meta-data file");
			return;
		}
		for (uint32_t k = 0; k < n && !c->failed; k++) {
			uint32_t v = counter_value(c, flavor, big);

			if (ours)
				counts[p->first[f] + k] = v;
		}
	}
	if (!c->failed && c->at != c->len - FOOTER)
		bad(c, "the counters do not end at the footer");
}

int gocover_counters(const struct gocover_pkg *p, const char *path,
		     uint32_t *counts, struct cap_err *err)
{
	struct cursor c;
	int big = 0, flavor;

	if (open_file(&c, path, err))
		return -1;
	flavor = counter_header(&c, p, &big);
	if (flavor > 0 && !counter_footer(&c))
		counter_segment(&c, p, flavor, big, counts);
	free((void *)c.b);
	return c.failed ? -1 : 0;
}
