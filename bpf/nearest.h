/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean": the names nearest one a spec got wrong, among a sorted
 * list of names (a binary's functions or variables, binary.h) or a DWARF
 * entry's children (a struct's members, a function's parameters).
 */
#ifndef PROBE_NEAREST_H
#define PROBE_NEAREST_H

#include <stddef.h>
#include <elfutils/libdw.h>

/* A sorted list of names, each once (names_sort()). */
struct names {
	char **v;
	size_t n, cap;
};

void names_add(struct names *l, const char *name);
/* Sort @l, each name once. */
void names_sort(struct names *l);
int names_has(const struct names *l, const char *name);
void names_free(struct names *l);

/*
 * " (did you mean A, B or C?)": the names of sorted @l nearest @name (by
 * edit distance, or with its last component); "" if none is near.  A
 * static buffer, overwritten by the next call.
 */
const char *names_nearest(const struct names *l, const char *name);
/* The same among @parent's children with @tag (DW_TAG_member, DW_TAG_formal_parameter). */
const char *nearest_child(Dwarf_Die *parent, int tag, const char *name);

#endif
