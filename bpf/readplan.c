// SPDX-License-Identifier: MIT
/*
 * Compiling a site's reads into bulk reads: see readplan.h.
 *
 * The reads form a tree: a root is a register, a saved argument or SP,
 * and every pointer a read goes through is a node under the node it is
 * read from.  Each node's loads (its children's pointers and the values
 * read at it) become the blocks of that node, one per span of at most
 * GP_MAX_BLOCK bytes.  Blocks run in node order, so a block's pointer is
 * always read before the block reads through it.
 */
#include <string.h>
#include "../capture/err.h"
#include "readplan.h"

#define MAX_NODES (GP_MAX_READS * (GP_MAX_HOPS + 1))

struct node {
	int parent;             /* -1: a root */
	int ptr_item;           /* the load of this node's pointer */
	unsigned char base, reg;
	int value_read;         /* a root whose value itself is read: 1 */
	int has_child;
};

/* One load from a node: a child's pointer or a read's value. */
struct item {
	int node, off, len;
	int block;
};

struct planner {
	const char *what;
	struct node node[MAX_NODES];
	struct item item[MAX_NODES];
	int nnodes, nitems;
	int lo[GP_MAX_BLOCKS];          /* node offset of each block's start */
	int final[GP_MAX_READS];        /* each read's item, -1: its root value */
	int root[GP_MAX_READS];
	struct gp_plan *plan;
	struct cap_err *err;
};

static int root_of(struct planner *p, unsigned base, unsigned reg)
{
	for (int i = 0; i < p->nnodes; i++)
		if (p->node[i].parent < 0 && p->node[i].base == base &&
		    p->node[i].reg == reg)
			return i;
	p->node[p->nnodes] = (struct node){ .parent = -1, .ptr_item = -1,
					    .base = (unsigned char)base,
					    .reg = (unsigned char)reg };
	return p->nnodes++;
}

static int add_item(struct planner *p, int node, int off, int len)
{
	p->item[p->nitems] = (struct item){ .node = node, .off = off, .len = len };
	return p->nitems++;
}

/* The node of the pointer at @parent + @off. */
static int child_of(struct planner *p, int parent, int off)
{
	for (int i = 0; i < p->nnodes; i++)
		if (p->node[i].parent == parent &&
		    p->item[p->node[i].ptr_item].off == off)
			return i;
	p->node[parent].has_child = 1;
	p->node[p->nnodes] = (struct node){ .parent = parent,
		.ptr_item = add_item(p, parent, off, 8) };
	return p->nnodes++;
}

/* A read as a root and a path: a stack slot is one more hop from SP. */
static int add_read(struct planner *p, int i, const struct gp_read *rd)
{
	int path[GP_MAX_HOPS + 1], n = 0, node;

	if (rd->nhops > GP_MAX_HOPS || (rd->size != 1 && rd->size != 2 &&
	    rd->size != 4 && rd->size != 8) || rd->src > GP_SRC_SAVED ||
	    (rd->src == GP_SRC_REG && rd->reg >= GP_NREGS) ||
	    (rd->src == GP_SRC_SAVED && rd->reg >= GP_SAVED_ARGS))
		return cap_fail(p->err, EXIT_USAGE, "%s: read %d is malformed",
				p->what, i);
	if (rd->src == GP_SRC_STACK) {
		path[n++] = rd->stack_off;
		node = root_of(p, GP_BASE_SP, 0);
	} else {
		node = root_of(p, rd->src == GP_SRC_REG ? GP_BASE_REG : GP_BASE_SAVED,
			       rd->reg);
	}
	for (int h = 0; h < rd->nhops; h++)
		path[n++] = rd->off[h];
	p->root[i] = node;
	p->final[i] = -1;
	if (n == 0) {
		p->node[node].value_read = 1;
		return 0;
	}
	for (int h = 0; h < n - 1; h++)
		node = child_of(p, node, path[h]);
	p->final[i] = add_item(p, node, path[n - 1], rd->size);
	return 0;
}

static int new_block(struct planner *p, unsigned flags)
{
	struct gp_plan *pl = p->plan;

	if (pl->nblocks == GP_MAX_BLOCKS)
		return cap_fail(p->err, EXIT_USAGE,
				"%s: the reads need more than %d bulk reads",
				p->what, GP_MAX_BLOCKS);
	memset(&pl->blocks[pl->nblocks], 0, sizeof(pl->blocks[0]));
	pl->blocks[pl->nblocks].flags = (unsigned char)flags;
	return (int)pl->nblocks++;
}

/* Group @node's loads, in offset order, into blocks of GP_MAX_BLOCK bytes. */
static int node_blocks(struct planner *p, int node)
{
	int order[MAX_NODES], n = 0, b = -1, first = -1;

	for (int i = 0; i < p->nitems; i++) {
		int j = n;

		if (p->item[i].node != node)
			continue;
		n++;
		while (j > 0 && p->item[order[j - 1]].off > p->item[i].off) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (int k = 0; k < n; k++) {
		struct item *it = &p->item[order[k]];

		if (b < 0 || it->off + it->len - p->lo[b] > GP_MAX_BLOCK) {
			b = new_block(p, 0);
			if (b < 0)
				return -1;
			p->lo[b] = it->off;
			if (first < 0)
				first = b;
		}
		struct gp_block *blk = &p->plan->blocks[b];

		if (it->off + it->len - p->lo[b] > blk->len)
			blk->len = (unsigned short)(it->off + it->len - p->lo[b]);
		it->block = b;
	}
	/* A lone field behind its own pointer: read a window at it. */
	if (first >= 0 && first == b && p->node[node].parent >= 0 &&
	    !p->node[node].has_child && p->plan->blocks[b].len <= 8)
		p->plan->blocks[b].flags = GP_BLOCK_WINDOW;
	return 0;
}

static unsigned area(const struct gp_block *b)
{
	if (b->flags & GP_BLOCK_WINDOW)
		return GP_SMALL;
	return (b->len + 7u) & ~7u;
}

/*
 * Record offsets: large blocks first, since the program can prove a read
 * of up to GP_MAX_BLOCK bytes in bounds only below GP_DATA_BYTES -
 * GP_MAX_BLOCK, one of up to GP_SMALL bytes below GP_DATA_BYTES - GP_SMALL.
 */
static int place(struct planner *p)
{
	struct gp_plan *pl = p->plan;
	unsigned at = 0;

	for (int small = 0; small < 2; small++)
		for (unsigned i = 0; i < pl->nblocks; i++) {
			struct gp_block *b = &pl->blocks[i];
			unsigned limit = small ? GP_DATA_BYTES - GP_SMALL :
					 GP_DATA_BYTES - GP_MAX_BLOCK;

			if ((area(b) <= GP_SMALL) != small)
				continue;
			if (at > limit || at + area(b) > GP_DATA_BYTES)
				return cap_fail(p->err, EXIT_USAGE,
						"%s: the reads need more than %d record bytes",
						p->what, GP_DATA_BYTES);
			b->doff = (unsigned short)at;
			at += area(b);
		}
	return 0;
}

/* Data offset of item @i in its block. */
static unsigned doff_of(struct planner *p, int i)
{
	const struct item *it = &p->item[i];

	return p->plan->blocks[it->block].doff +
	       (unsigned)(it->off - p->lo[it->block]);
}

/* Where block @b's base is in the probe's words (goprobe.h). */
static unsigned word_of(const struct gp_block *b)
{
	switch (b->base) {
	case GP_BASE_REG:
		return 8u * b->reg;
	case GP_BASE_SAVED:
		return 8u * (GP_WORD_SAVED + b->reg);
	case GP_BASE_SP:
		return 8u * GP_WORD_SP;
	}
	return GP_ROOT_BYTES + b->ptr;
}

/* Where each block starts from, once every block has its record offset. */
static void bases(struct planner *p)
{
	for (unsigned i = 0; i < p->plan->nblocks; i++) {
		struct gp_block *b = &p->plan->blocks[i];
		int node = -1;

		for (int j = 0; j < p->nitems && node < 0; j++)
			if (p->item[j].block == (int)i)
				node = p->item[j].node;
		const struct node *nd = &p->node[node];

		b->off = p->lo[i];
		if (nd->parent < 0) {
			b->base = nd->base;
			b->reg = nd->reg;
		} else {
			b->base = GP_BASE_BLOCK;
			b->reg = (unsigned char)p->item[nd->ptr_item].block;
			b->ptr = (unsigned short)doff_of(p, nd->ptr_item);
			b->parent = (unsigned char)(b->reg + 1);
		}
		b->word = (unsigned short)word_of(b);
	}
}

/* The reads of @s as nodes, their blocks and the blocks' record offsets. */
static int plan_blocks(struct planner *p, const struct gp_site *s)
{
	for (unsigned i = 0; i < s->nreads; i++)
		if (add_read(p, (int)i, &s->reads[i]))
			return -1;
	for (int n = 0; n < p->nnodes; n++)
		if (node_blocks(p, n))
			return -1;
	return place(p);
}

int gp_plan_site(const struct gp_site *s, const char *what,
		 struct gp_plan *plan, struct cap_err *err)
{
	static struct planner p;

	if (s->nreads > GP_MAX_READS)
		return cap_fail(err, EXIT_USAGE, "%s: more than %d reads", what,
				GP_MAX_READS);
	memset(&p, 0, sizeof(p));
	memset(plan, 0, sizeof(*plan));
	p.what = what;
	p.plan = plan;
	p.err = err;
	if (plan_blocks(&p, s))
		return -1;
	bases(&p);
	plan->nsaved = s->nsaved;
	memcpy(plan->saved, s->saved, sizeof(plan->saved));
	plan->nreads = s->nreads;
	for (unsigned i = 0; i < s->nreads; i++) {
		struct gp_value *v = &plan->vals[i];
		int it = p.final[i];
		const struct node *root = &p.node[p.root[i]];

		if (it < 0) {
			struct gp_block word = { .base = root->base, .reg = root->reg };

			/*
			 * a register's own value: only the read's bytes are
			 * its (a bool or int32 result leaves the rest of RAX
			 * as it was), the consumer masks the others
			 */
			v->block = GP_NO_BLOCK;
			v->size = s->reads[i].size && s->reads[i].size < 8 ? s->reads[i].size : 8;
			v->doff = (unsigned short)word_of(&word);
			continue;
		}
		v->block = (unsigned char)p.item[it].block;
		v->size = (unsigned char)p.item[it].len;
		v->doff = (unsigned short)(GP_ROOT_BYTES + doff_of(&p, it));
	}
	return 0;
}
