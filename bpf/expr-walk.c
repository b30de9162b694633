// SPDX-License-Identifier: MIT
/* An expression's walk, its place and moves: see expr-walk.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "../capture/die.h"
#include "expr-walk.h"
#include "nearest.h"

char *walk_why(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	char *m, *r;

	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = xstrdup(fmt);
	va_end(ap);
	r = xasprintf("%s: %s", w->expr, m);
	free(m);
	return r;
}

/*
 * Piece @p's pointers as hops of the read, which starts at @p's address
 * (in off[0] if @first, else in stack_off); the walk's byte of the value
 * is then an offset into the last of them.
 */
static void through(struct walk *w, const struct piece *p, int first)
{
	int *at = first ? &w->rd.off[0] : &w->rd.stack_off;

	for (int k = 0; k < p->nderef; k++) {
		w->rd.off[w->rd.nhops] = p->doff[k];
		at = &w->rd.off[w->rd.nhops++];
	}
	*at += w->voff - p->off;
}

char *walk_place(struct walk *w)
{
	for (int i = 0; i < w->npieces; i++) {
		struct piece *p = &w->piece[i];

		if (p->stack && w->voff >= p->off && w->voff < p->off + p->size) {
			w->rd.src = GP_SRC_STACK;
			w->rd.stack_off = p->off0;
			w->is_arg_reg = 0;
			through(w, p, 0);
			return NULL;
		}
		if (p->mem && w->voff >= p->off && w->voff < p->off + p->size) {
			w->rd.src = GP_SRC_REG;
			w->rd.reg = (unsigned char)p->reg;
			w->rd.nhops = 1;
			w->rd.off[0] = p->off0;
			through(w, p, 1);
			return NULL;
		}
		if (!p->stack && !p->mem && w->voff == p->off) {
			w->rd.src = GP_SRC_REG;
			w->rd.reg = (unsigned char)p->reg;
			return NULL;
		}
	}
	if (w->is_var)
		return walk_why(w, "byte %d of the variable is in none of the pieces DWARF "
				"gives it: the optimizer dropped it", w->voff);
	if (probe_abi(w->b) == PROBE_ABI_SYSV)
		return walk_why(w, "byte %d of the value is in no place DWARF gives at the "
				"probe site (optimized out, or inside a register the probe "
				"reads whole)", w->voff);
	return walk_why(w, "this part of the argument was optimized away");
}

char *walk_deref(struct walk *w, long off)
{
	if (dwarf_tag(&w->type) != DW_TAG_pointer_type)
		return walk_why(w, "%s is not a pointer", type_name(&w->type));
	if (!w->mem) {
		char *e = walk_place(w);

		if (e)
			return e;
		w->mem = 1;
	}
	if (w->rd.nhops == GP_MAX_HOPS)
		return walk_why(w, "more than %d pointers to follow", GP_MAX_HOPS);
	w->rd.off[w->rd.nhops++] = (int)off;  /* a frame slot's is the 2nd */
	if (sub_type(&w->type, &w->type))
		return walk_why(w, "an untyped pointer (unsafe.Pointer) cannot be followed");
	peel(&w->type);
	return NULL;
}

void walk_advance(struct walk *w, long off)
{
	if (w->mem)
		w->rd.off[w->rd.nhops - 1] += (int)off;
	else
		w->voff += (int)off;
}

/*
 * A bit-field's first bit from its struct's start: DW_AT_data_bit_offset
 * (gcc's), or DWARF 2's DW_AT_bit_offset, counted from the most
 * significant bit of a DW_AT_byte_size unit at DW_AT_data_member_location
 * (clang 14's), on a little-endian machine.
 */
static int bit_offset(Dwarf_Die *m, Dwarf_Word bits, Dwarf_Word *at)
{
	Dwarf_Attribute a;
	Dwarf_Word from_msb, unit, loc;

	if (!dwarf_formudata(dwarf_attr(m, DW_AT_data_bit_offset, &a), at))
		return 0;
	if (dwarf_formudata(dwarf_attr(m, DW_AT_bit_offset, &a), &from_msb) ||
	    dwarf_formudata(dwarf_attr(m, DW_AT_byte_size, &a), &unit) ||
	    dwarf_formudata(dwarf_attr(m, DW_AT_data_member_location, &a), &loc) ||
	    from_msb + bits > 8 * unit)
		return -1;
	*at = 8 * loc + 8 * unit - from_msb - bits;
	return 0;
}

/*
 * Bit-field @m: the unit of its type's size (and alignment) that holds it,
 * and its bits there.
 */
static char *bit_field(struct walk *w, Dwarf_Die *m, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Word bits, at, size, unit;

	if (dwarf_formudata(dwarf_attr(m, DW_AT_bit_size, &a), &bits) ||
	    bit_offset(m, bits, &at) || sub_type(m, &w->type))
		return walk_why(w, "bit-field %s has no bit offset DWARF gives", name);
	peel(&w->type);
	if (dwarf_aggregate_size(&w->type, &size) || !size || size > 8)
		return walk_why(w, "bit-field %s has no integer type", name);
	unit = at / (8 * size) * size;
	if (at - 8 * unit + bits > 8 * size)
		return walk_why(w, "bit-field %s straddles two %d-byte units (a packed "
				"struct): the probe reads one", name, (int)size);
	w->bit_off = (int)(at - 8 * unit);
	w->bit_size = (int)bits;
	walk_advance(w, (long)unit);
	return NULL;
}

char *walk_field(struct walk *w, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Word loc;
	Dwarf_Die m;

	if (!is_aggregate(&w->type))
		return walk_why(w, "%s has no fields (looking for %s)", type_name(&w->type), name);
	if (find_member(&w->type, name, &m))
		return walk_why(w, "%s has no field %s%s", type_name(&w->type), name,
				nearest_child(&w->type, DW_TAG_member, name));
	if (dwarf_hasattr(&m, DW_AT_bit_size))
		return bit_field(w, &m, name);
	if (dwarf_tag(&w->type) == DW_TAG_union_type &&
	    !dwarf_hasattr(&m, DW_AT_data_member_location))
		loc = 0;    /* a union's members all start at 0 */
	else if (dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &loc))
		return walk_why(w, "field %s has no offset", name);
	if (sub_type(&m, &w->type))
		return walk_why(w, "field %s has no type", name);
	peel(&w->type);
	walk_advance(w, (long)loc);
	return NULL;
}

char *walk_member(struct walk *w, const char *name)
{
	char *e;

	if (dwarf_tag(&w->type) == DW_TAG_pointer_type && (e = walk_deref(w, 0)))
		return e;
	return walk_field(w, name);
}

char *walk_guard(struct walk *w, struct walk *at, enum probe_guard_op op,
		 unsigned long long k, int size)
{
	struct probe_guard *g = &w->guard[w->nguards];
	char *e;

	if (w->nguards == PROBE_MAX_GUARDS)
		return walk_why(w, "more than %d slice indexes and assertions", PROBE_MAX_GUARDS);
	if (!at->mem && (e = walk_place(at)))
		return e;
	g->rd = at->rd;
	g->rd.size = (unsigned char)size;
	g->is_arg_reg = at->rd.src == GP_SRC_REG && at->is_arg_reg;
	g->op = op;
	g->k = k;
	w->nguards++;
	return NULL;
}

static void take_guards(const struct walk *w, struct probe_value *out)
{
	memcpy(out->guard, w->guard, sizeof(out->guard));
	out->nguards = w->nguards;
}

void walk_take(struct walk *w, enum probe_kind kind, int size,
	       struct probe_value *out)
{
	w->rd.size = (unsigned char)size;
	out->kind = kind;
	out->size = size;
	out->rd = w->rd;
	out->is_arg_reg = w->rd.src == GP_SRC_REG && w->is_arg_reg;
	take_guards(w, out);
}
