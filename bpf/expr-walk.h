/* SPDX-License-Identifier: MIT */
/*
 * An expression's walk (expr.h): where its value is so far, in the
 * pieces DWARF gives an argument, a result or a variable, then through
 * pointers as a probe read (struct gp_read); and the moves every ABI's
 * and language's part of the walk makes (expr-go.h, expr-sysv.h,
 * expr-rust.h): through a pointer, to a field, a guard, the value taken.
 * Every move returns NULL, or why not ("EXPR: why", caller frees).
 */
#ifndef PROBE_EXPR_WALK_H
#define PROBE_EXPR_WALK_H

#include <elfutils/libdw.h>
#include <dwarf.h>
#include <string.h>
#include "binary.h"
#include "expr-value.h"

#define MAX_PIECES 16
#define MAX_NAME 128
#define MAX_OPS 32
#define MAX_DEREF 3
#define MAX_EMBED 6     /* depth of a path of fields: Go's embedding, Rust's containers */

/*
 * Part of a value in a register or on the stack (@stack: SP + @off0), or
 * (@mem) in memory at register @reg + @off0 (a System V frame's slot).
 * With @nderef, that address holds a pointer (DW_OP_deref), and the value
 * is at it plus @doff[0], which holds the next pointer if there is one.
 */
struct piece {
	int off, size;
	int stack, mem, reg, off0;
	int nderef, doff[MAX_DEREF];
};

/*
 * Where the expression's value is so far.  Until it goes through a pointer
 * (!mem) it is the argument itself, in pieces (registers, or one stack
 * span); @voff is the byte within it.  Then (mem) it is in memory at the
 * address rd describes (goprobe.h).
 */
struct walk {
	struct probe_binary *b;
	Dwarf_Die *fn;
	const char *expr, *func;
	struct piece piece[MAX_PIECES];
	int npieces, voff, mem, is_arg_reg;
	int bit_off, bit_size;  /* a C bit-field's bits in the unit read */
	struct gp_read rd;
	Dwarf_Die type;
	struct probe_guard guard[PROBE_MAX_GUARDS];
	int nguards;
	int is_int;             /* a len: an int, whatever the field counting it */
	int at_exit;            /* read at a return */
	int is_var;             /* it starts at a variable */
};

static inline const char *type_name(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(t, DW_AT_name, &a));

	return n ? n : "?";
}

/* @t without typedefs (Go's named non-struct types). */
static inline int peel(Dwarf_Die *t)
{
	return dwarf_peel_type(t, t);
}

static inline int sub_type(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), out) ?
	       0 : -1;
}

/* Member @name of struct @t: 0 and *@m, or -1. */
static inline int find_member(Dwarf_Die *t, const char *name, Dwarf_Die *m)
{
	if (dwarf_child(t, m))
		return -1;
	do {
		const char *n = dwarf_diename(m);

		if (dwarf_tag(m) == DW_TAG_member && n && !strcmp(n, name))
			return 0;
	} while (dwarf_siblingof(m, m) == 0);
	return -1;
}

/* A struct (C's unions and C++'s classes too: no Go type is either). */
static inline int is_aggregate(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* "EXPR: why", for the caller to report with the spec's file:line. */
char *walk_why(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The value, not yet through a pointer, as the start of a read. */
char *walk_place(struct walk *w);

/* Go through the pointer the value is, to @off bytes past its target. */
char *walk_deref(struct walk *w, long off);

/* @off bytes further into the value. */
void walk_advance(struct walk *w, long off);

/*
 * Field @name of the struct (union, class) the value is, its own (no
 * embedded struct's): a bit-field's unit, else its offset.
 */
char *walk_field(struct walk *w, const char *name);

/* Member @name of the struct the value is (or points to), its own field. */
char *walk_member(struct walk *w, const char *name);

/* A guard of @w's value: @at's value (@size bytes) is above (equal, unequal to) @k. */
char *walk_guard(struct walk *w, struct walk *at, enum probe_guard_op op,
		 unsigned long long k, int size);

/* The walk's read, @size bytes of @kind, as the value (placed already). */
void walk_take(struct walk *w, enum probe_kind kind, int size,
	       struct probe_value *out);

#endif
