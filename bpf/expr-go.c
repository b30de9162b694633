// SPDX-License-Identifier: MIT
/* Go's part of an expression's walk: see expr-go.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "expr-go.h"

/* Go's DWARF register numbers (amd64) to the probe's registers. */
static int go_reg(unsigned dw)
{
	static const int map[16] = { GP_RAX, -1, GP_RCX, GP_RBX, GP_RSI, GP_RDI,
		-1, -1, GP_R8, GP_R9, GP_R10, GP_R11, -1, -1, GP_R14, -1 };

	return dw < 16 ? map[dw] : -1;
}

/*
 * A location given as a DW_FORM_block1 expression, which Go writes for a
 * location that holds everywhere (a stack argument) and libdw refuses in
 * DWARF 4 ("not a location list value"): decoded here, the few operations
 * Go puts there.  Returns -1 if @a is no such block.
 */
int go_block_ops(Dwarf_Attribute *a, Dwarf_Op *ops, size_t *nops)
{
	Dwarf_Block b;
	size_t i = 0, n = 0;

	if (dwarf_whatform(a) != DW_FORM_block1 || dwarf_formblock(a, &b))
		return -1;
	while (i < b.length && n < MAX_OPS) {
		Dwarf_Op *op = &ops[n++];
		unsigned char byte;
		int shift = 0;

		*op = (Dwarf_Op){ .atom = b.data[i++] };
		if (op->atom != DW_OP_fbreg && op->atom != DW_OP_piece &&
		    op->atom != DW_OP_plus_uconst)
			continue;
		/* One LEB128 operand: signed for fbreg. */
		do {
			if (i >= b.length)
				return -1;
			byte = b.data[i++];
			op->number |= (Dwarf_Word)(byte & 0x7f) << shift;
			shift += 7;
		} while ((byte & 0x80) && shift < 64);
		if (op->atom == DW_OP_fbreg && shift < 64 && (byte & 0x40))
			op->number |= ~(Dwarf_Word)0 << shift;
	}
	*nops = n;
	return 0;
}

/*
 * One operation of a Go location into @cur (*@have once it names a place):
 * a register, a slot of the caller's frame, or an offset into it.
 */
char *go_arg_op(struct walk *w, const Dwarf_Op *op, const char *name,
		struct piece *cur, int *have)
{
	unsigned a = op->atom;

	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		cur->reg = go_reg(a - DW_OP_reg0);
		if (cur->reg < 0)
			return walk_why(w, "argument %s is in a register the probe cannot read",
					name);
		*have = 1;
	} else if (a == DW_OP_fbreg) {
		/* The frame base is the CFA: SP + 8 at entry and at a RET. */
		cur->stack = 1;
		cur->off0 = 8 + (int)op->number;
		*have = 1;
	} else if (a == DW_OP_call_frame_cfa) {
		cur->stack = 1;
		cur->off0 = 8;
		*have = 1;
	} else if (a == DW_OP_plus_uconst && cur->stack) {
		cur->off0 += (int)op->number;
	} else {
		return walk_why(w, "argument %s has a location the probe cannot read",
				name);
	}
	return NULL;
}

/* Integer registers a value of type @t takes in Go's register ABI, or -1. */
static int abi_words(Dwarf_Die t)
{
	Dwarf_Die m;
	Dwarf_Attribute a;
	Dwarf_Word enc, size;
	int n = 0;

	peel(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		return 1;
	case DW_TAG_base_type:
		if (dwarf_formudata(dwarf_attr(&t, DW_AT_encoding, &a), &enc) ||
		    enc == DW_ATE_float || enc == DW_ATE_complex_float ||
		    dwarf_aggregate_size(&t, &size) || size > 8)
			return -1;
		return 1;
	case DW_TAG_structure_type:
		if (dwarf_child(&t, &m))
			return 0;
		do {
			Dwarf_Die mt;
			int k;

			if (dwarf_tag(&m) != DW_TAG_member || sub_type(&m, &mt))
				continue;
			k = abi_words(mt);
			if (k < 0)
				return -1;
			n += k;
		} while (dwarf_siblingof(&m, &m) == 0);
		return n;
	}
	return -1;
}

/*
 * Result @name: Go's DWARF gives results no location, so take the
 * register ABI's: results fill RAX, RBX, RCX, ... in order, one word per
 * integer, pointer or struct member (what this cannot count, floats,
 * arrays, a result spilled to the stack, is refused).
 */
char *go_result_pieces(struct walk *w, Dwarf_Die *fn, const char *name)
{
	Dwarf_Die p;
	int reg = 0;

	if (dwarf_child(fn, &p))
		return walk_why(w, "no result %s", name);
	do {
		Dwarf_Attribute a;
		bool is_result;
		Dwarf_Die t;
		const char *n;
		int k;

		if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
		    dwarf_formflag(dwarf_attr(&p, DW_AT_variable_parameter, &a),
				   &is_result) || !is_result || sub_type(&p, &t))
			continue;
		n = dwarf_diename(&p);
		k = abi_words(t);
		if (k < 0 || reg + k > GP_R11 + 1)
			return walk_why(w, "result %s is not in integer registers (%s)",
					n ? n : "?", type_name(&t));
		if (n && !strcmp(n, name)) {
			for (int i = 0; i < k && i < MAX_PIECES; i++)
				w->piece[w->npieces++] = (struct piece){
					.off = 8 * i, .size = 8, .reg = reg + i };
			w->type = t;
			return NULL;
		}
		reg += k;
	} while (dwarf_siblingof(&p, &p) == 0);
	return walk_why(w, "no result %s", name);
}

#define DW_AT_GO_EMBEDDED_FIELD 0x2903

/* @t (a struct, a pointer to one, named or not) as its struct, or -1. */
static int struct_of(Dwarf_Die *t)
{
	peel(t);
	if (dwarf_tag(t) == DW_TAG_pointer_type && (sub_type(t, t) || peel(t)))
		return -1;
	return dwarf_tag(t) == DW_TAG_structure_type ? 0 : -1;
}

/*
 * How many embedded fields of @t have a field @name @depth levels down
 * (1: a field of an embedded field); the names of the first's embedded
 * fields on the way into @path.
 */
static int embedded(Dwarf_Die *t, const char *name, int depth,
		    char path[][MAX_NAME])
{
	Dwarf_Die m, sub;
	int n = 0;

	if (dwarf_child(t, &m))
		return 0;
	do {
		Dwarf_Attribute a;
		bool emb = false;
		const char *mn = dwarf_diename(&m);
		int k;

		if (dwarf_tag(&m) != DW_TAG_member || !mn ||
		    dwarf_formflag(dwarf_attr(&m, DW_AT_GO_EMBEDDED_FIELD, &a), &emb) ||
		    !emb || sub_type(&m, &sub) || struct_of(&sub))
			continue;
		if (depth == 1) {
			Dwarf_Die f;

			k = find_member(&sub, name, &f) == 0;
		} else {
			k = embedded(&sub, name, depth - 1, path + 1);
		}
		if (k && !n)
			snprintf(path[0], MAX_NAME, "%s", mn);
		n += k;
	} while (dwarf_siblingof(&m, &m) == 0);
	return n;
}

/*
 * A field promoted from an embedded struct (x.Term for x.State.Term), as
 * Go finds it: at the shallowest depth of embedding, one field there.
 */
int go_promoted(struct walk *w, const char *name, char **e)
{
	char path[MAX_EMBED][MAX_NAME];

	for (int depth = 1; depth < MAX_EMBED; depth++) {
		int n = embedded(&w->type, name, depth, path);

		if (n > 1)
			*e = walk_why(w, "%s: field %s is ambiguous (%d embedded fields have it at depth %d)",
				      type_name(&w->type), name, n, depth);
		if (n == 1) {
			*e = NULL;
			for (int i = 0; i < depth && !*e; i++)
				*e = walk_member(w, path[i]);
			if (!*e)
				*e = walk_member(w, name);
		}
		if (n)
			return 1;
	}
	return 0;
}

/* DW_AT_go_kind: the reflect.Kind Go's linker gives its types. */
#define DW_AT_GO_KIND 0x2900
enum { GO_REFLECT_INTERFACE = 20, GO_REFLECT_MAP = 21, GO_REFLECT_SLICE = 23,
       GO_REFLECT_STRING = 24 };

/* @t's reflect.Kind, or -1 (a type Go's DWARF gives none). */
static int reflect_kind(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word k;

	return dwarf_formudata(dwarf_attr(t, DW_AT_GO_KIND, &a), &k) ? -1 : (int)k;
}

/*
 * Is the value a Go slice (a struct of array, len, cap) or a string (str,
 * len)?  By kind, not by name: a named one (type IDs []uint64, type
 * ServerID string) is a struct named after its type.  Rust's are by their
 * DWARF (expr-rust.h).
 */
int go_is_slice(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_structure_type &&
	       (reflect_kind(t) == GO_REFLECT_SLICE || !strncmp(type_name(t), "[]", 2));
}

int go_is_string(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_structure_type &&
	       (reflect_kind(t) == GO_REFLECT_STRING || !strcmp(type_name(t), "string"));
}

/* Is @t an interface's value (runtime.iface, or runtime.eface for any)? */
int go_iface_word(Dwarf_Die *t, const char **type_word)
{
	const char *n = type_name(t);

	*type_word = !strcmp(n, "runtime.iface") ? "tab" :
		     !strcmp(n, "runtime.eface") ? "_type" : NULL;
	return dwarf_tag(t) == DW_TAG_structure_type && *type_word;
}

/*
 * x.(*T): the interface's data word as a *T, guarded by its dynamic type:
 * the itab's Type (an empty interface's _type) must be T's descriptor.
 */
char *go_assertion(struct walk *w, const char *type)
{
	const char *word;
	unsigned long desc;
	struct walk at;
	Dwarf_Die t;
	char *e;
	int rc;

	if (!go_iface_word(&w->type, &word))
		return walk_why(w, "%s is not an interface: .(%s) asserts an interface's type",
				type_name(&w->type), type);
	if (*type != '*')
		return walk_why(w, ".(%s): only a pointer type is asserted here, .(*T)", type);
	if ((rc = go_pointer_type(w->b, type, &t, &desc)) == -2)
		return walk_why(w, ".(%s): the binary is position-independent: its type descriptors' addresses are known only at run time", type);
	if (rc)
		return walk_why(w, ".(%s): no type %s in the binary (or no descriptor of it)", type, type);
	at = *w;
	if ((e = walk_member(&at, word)) ||
	    (!strcmp(word, "tab") && (e = walk_member(&at, "Type"))) ||
	    (e = walk_guard(w, &at, PROBE_GUARD_EQUAL, desc, 8)) || (e = walk_member(w, "data")))
		return e;
	w->type = t;
	return NULL;
}

/* The field of map pointer @t's header that counts it (Go 1.24's maps, or older), or NULL. */
const char *go_map_count(Dwarf_Die *t)
{
	Dwarf_Die h = *t, m;
	const char *n;

	if (dwarf_tag(t) != DW_TAG_pointer_type || struct_of(&h))
		return NULL;
	n = type_name(&h);
	if (!strncmp(n, "map<", 4) && !find_member(&h, "used", &m))
		return "used";
	if (!strncmp(n, "hash<", 5) && !find_member(&h, "count", &m))
		return "count";
	return NULL;
}

/*
 * sync/atomic's Int32, Int64, Uint32, Uint64, Uintptr and Bool are read
 * by their value, their field v (a Bool's a uint32 that is 0 or 1: its
 * low byte, as a bool).  1 if @w was one of them (now at its value), 0 if not.
 */
int go_atomic(struct walk *w, int *is_bool)
{
	static const char *const types[] = { "Int32", "Int64", "Uint32", "Uint64",
					     "Uintptr", "Bool" };
	const char *n = type_name(&w->type);
	char *e;

	if (strncmp(n, "sync/atomic.", 12))
		return 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(n + 12, types[i])) {
			*is_bool = !strcmp(types[i], "Bool");
			e = walk_member(w, "v");
			free(e);
			return !e;
		}
	return 0;
}

char *go_goid(struct probe_binary *b, struct probe_value *out)
{
	struct cap_err err;
	long off = probe_member(b, "runtime.g", "goid", &err);

	if (off < 0)
		return xstrdup(err.msg);
	memset(out, 0, sizeof(*out));
	out->rd = (struct gp_read){ .src = GP_SRC_REG, .reg = GP_R14, .nhops = 1,
				    .size = 8, .off = { (int)off } };
	out->kind = PROBE_KIND_UNSIGNED;
	out->size = 8;
	snprintf(out->type, sizeof(out->type), "int64");
	return NULL;
}
