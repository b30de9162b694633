// SPDX-License-Identifier: MIT
/* The probe plan compiler: which bulk reads a site's reads become. */
#include <stdio.h>
#include <string.h>
#include "bpf/readplan.h"
#include "unit.h"


/* Read @slot of @s: from register @reg through the -1 terminated hops. */
static void add(struct gp_site *s, int slot, int reg, int size, const int *hops)
{
	struct gp_read *rd = &s->reads[slot];

	rd->src = GP_SRC_REG;
	rd->reg = (unsigned char)reg;
	rd->size = (unsigned char)size;
	while (hops[rd->nhops] >= 0) {
		rd->off[rd->nhops] = hops[rd->nhops];
		rd->nhops++;
	}
	if ((unsigned)slot >= s->nreads)
		s->nreads = (unsigned)slot + 1;
}

int main(void)
{
	struct gp_site s;
	struct gp_plan p;
	struct cap_err err;

	/*
	 * r.a (8 at 0), r.b (4 at 144), r.log->c (8 at 88), r.log->d (8 at
	 * 32), *m.e and *m.f (proto2 lone fields at 8 and 16), RCX itself.
	 */
	memset(&s, 0, sizeof(s));
	add(&s, 0, GP_RAX, 8, (const int[]){ 0, -1 });
	add(&s, 1, GP_RAX, 4, (const int[]){ 144, -1 });
	add(&s, 2, GP_RAX, 8, (const int[]){ 48, 88, -1 });
	add(&s, 3, GP_RAX, 8, (const int[]){ 48, 32, -1 });
	add(&s, 4, GP_RBX, 8, (const int[]){ 8, 0, -1 });
	add(&s, 5, GP_RBX, 8, (const int[]){ 16, 0, -1 });
	add(&s, 6, GP_RCX, 8, (const int[]){ -1 });
	check("a plan of seven reads", !gp_plan_site(&s, "test", &p, &err), err.msg);
	check("one block per struct, one per lone field, none for a value",
	      p.nblocks == 5, "no");
	check("r read once, spanning its fields",
	      p.blocks[0].base == GP_BASE_REG && p.blocks[0].reg == GP_RAX &&
	      p.blocks[0].off == 0 && p.blocks[0].len == 148, "no");
	check("r.log read through the pointer in r's block",
	      p.blocks[1].base == GP_BASE_BLOCK && p.blocks[1].reg == 0 &&
	      p.blocks[1].ptr == p.blocks[0].doff + 48 &&
	      p.blocks[1].off == 32 && p.blocks[1].len == 64, "no");
	check("values point into their blocks, after the words",
	      p.vals[1].block == 0 && p.vals[1].size == 4 &&
	      p.vals[1].doff == GP_ROOT_BYTES + p.blocks[0].doff + 144 &&
	      p.vals[2].block == 1 &&
	      p.vals[2].doff == GP_ROOT_BYTES + p.blocks[1].doff + 56, "no");
	check("lone fields are windows",
	      p.blocks[p.vals[4].block].flags == GP_BLOCK_WINDOW &&
	      p.blocks[p.vals[5].block].flags == GP_BLOCK_WINDOW &&
	      p.blocks[p.vals[4].block].len == 8, "no");
	check("a register's own value is its word, never nil",
	      p.vals[6].block == GP_NO_BLOCK && p.vals[6].size == 8 &&
	      p.vals[6].doff == 8 * GP_RCX, "no");
	check("blocks run parents first",
	      p.blocks[p.vals[4].block].reg < p.vals[4].block, "no");
	check("each base is a word of the probe's: a register, a pointer read",
	      p.blocks[0].word == 8 * GP_RAX && !p.blocks[0].parent &&
	      p.blocks[1].word == GP_ROOT_BYTES + p.blocks[1].ptr &&
	      p.blocks[1].parent == 1, "no");

	/* Fields 600 bytes apart: two blocks, neither over GP_MAX_BLOCK. */
	memset(&s, 0, sizeof(s));
	add(&s, 0, GP_RAX, 8, (const int[]){ 0, -1 });
	add(&s, 1, GP_RAX, 8, (const int[]){ 600, -1 });
	check("a plan of two reads", !gp_plan_site(&s, "test", &p, &err), err.msg);
	check("a span over GP_MAX_BLOCK is split",
	      p.nblocks == 2 && p.blocks[0].len == 8 && p.blocks[1].off == 600, "no");
	return unit_status();
}
