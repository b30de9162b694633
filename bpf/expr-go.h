/* SPDX-License-Identifier: MIT */
/*
 * Go's part of an expression's walk (expr-walk.h): its register ABI's
 * arguments and results (Go's DWARF gives results no location), and its
 * runtime's types as Go's DWARF describes them: slices and strings by
 * their reflect kind, interfaces and their dynamic type, maps' counts,
 * fields promoted from embedded structs, sync/atomic's values, the
 * goroutine's id.  Each returns NULL, or why not, as the walk's moves do.
 */
#ifndef PROBE_EXPR_GO_H
#define PROBE_EXPR_GO_H

#include "expr-walk.h"

/*
 * @a's operations into @ops (at most MAX_OPS), how many into *@nops: a
 * DW_FORM_block1 location, which Go writes for one that holds everywhere
 * and libdw refuses in DWARF 4; -1 if @a is no such block.
 */
int go_block_ops(Dwarf_Attribute *a, Dwarf_Op *ops, size_t *nops);
/* One operation of an argument's location @op into @cur; *@have once it names a place. */
char *go_arg_op(struct walk *w, const Dwarf_Op *op, const char *name,
		struct piece *cur, int *have);
/* Result @name of @fn, where the register ABI returns it. */
char *go_result_pieces(struct walk *w, Dwarf_Die *fn, const char *name);
/*
 * Field @name promoted from an embedded struct of the struct the value
 * is: 1, and the move's result in *@e, if one has it (or several: *@e
 * says it is ambiguous); 0 if none has.
 */
int go_promoted(struct walk *w, const char *name, char **e);
/* Is @t a Go slice, or a string (named ones too)? */
int go_is_slice(Dwarf_Die *t);
int go_is_string(Dwarf_Die *t);
/* Is @t an interface's value?  Its type word's field into *@type_word. */
int go_iface_word(Dwarf_Die *t, const char **type_word);
/* x.(*@type) of the interface the value is. */
char *go_assertion(struct walk *w, const char *type);
/* The field of map pointer @t's header that counts it, or NULL. */
const char *go_map_count(Dwarf_Die *t);
/* sync/atomic's value types: 1 if the value is one (now at its value), *@is_bool for a Bool. */
int go_atomic(struct walk *w, int *is_bool);
/* The goroutine's id (runtime.g's goid, through R14). */
char *go_goid(struct probe_binary *b, struct probe_value *out);

#endif
