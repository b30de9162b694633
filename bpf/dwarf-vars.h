/* SPDX-License-Identifier: MIT */
/*
 * A binary's variables with a fixed address, by the names a probe spec
 * gives them (docs/probe-spec.md, "Variables"): Go's package variables by their
 * symbol (main.counter, go.etcd.io/raft/v3.x), C's globals and statics
 * by their name, C++'s and Rust's through their namespaces (ns::x,
 * crate::module::COUNTER); a C static of another file than the probed
 * function's as FILE::NAME (state.c::counter, FILE the base name of its
 * compile unit's file).  Read from DWARF (libdw): the variables at a
 * unit's top and in its namespaces, each with its location.
 */
#ifndef DWARF_VARS_H
#define DWARF_VARS_H

#include <elfutils/libdw.h>

struct probe_var {
	char *name;             /* as a spec names it, without FILE:: */
	char *file;             /* its unit's file's base name */
	Dwarf_Off die, cu;
	int external;           /* DW_AT_external: one definition for all units */
};

struct probe_vars {
	struct probe_var *v;
	size_t n, cap;
};

void probe_vars_read(Dwarf *dw, struct probe_vars *vs);
void probe_vars_free(struct probe_vars *vs);

/*
 * The variable @name names as seen from function @fn, as C scopes it: a
 * static of @fn itself, one of @fn's unit, else the one that is external
 * (or the only one).  1 and *@var; 0 if no variable has the name; -1 and
 * why in *@e (caller frees) if several do and none is the one.
 */
int probe_var_find(Dwarf *dw, const struct probe_vars *vs, Dwarf_Die *fn,
		   const char *name, Dwarf_Die *var, char **e);

#define PROBE_VAR_PIECES 16

/* Bytes [@off, @off + @size) of a variable, at @addr in the file. */
struct probe_var_piece {
	Dwarf_Addr addr;
	int off, size;
};

/*
 * Where variable @var is in the file: one address (DW_OP_addr, clang's
 * DW_OP_addrx), a piece of it all; or the pieces an optimizer scattered
 * it in (DW_OP_piece, each at an address of its own; LLVM does so with a
 * Rust static struct), a part no piece has optimized out.  Up to
 * PROBE_VAR_PIECES into @p, how many into *@n: NULL, or why it has none
 * (thread-local, folded to a constant, optimized out), for the caller to
 * free.
 */
char *probe_var_pieces(Dwarf_Die *var, struct probe_var_piece *p, int *n);

#endif
