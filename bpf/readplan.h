/* SPDX-License-Identifier: MIT */
/*
 * A site's reads (struct gp_site) compiled into the BPF program's plan
 * (struct gp_plan): bulk reads, and where each read's value is in them.
 *
 * Reads that go through the same pointers share them: every struct a site
 * reads is read once, in one block spanning the fields read from it, and
 * a lone field behind its own pointer (a proto2 *uint64) is read with a
 * small window that later lone fields allocated next to it fall into.
 */
#ifndef READPLAN_H
#define READPLAN_H

#include "goprobe.h"

struct cap_err;

/*
 * Compile @s into @plan (func, kind and goid_off are left to the caller).
 * Fails (-1, @err of kind EXIT_USAGE naming @what) when a read is
 * malformed or the reads need more than GP_MAX_READS reads, GP_MAX_BLOCKS
 * blocks or GP_DATA_BYTES bytes of blocks; @plan is then not to be used.
 */
int gp_plan_site(const struct gp_site *s, const char *what,
		 struct gp_plan *plan, struct cap_err *err);

#endif
