/* SPDX-License-Identifier: MIT */
/*
 * A spec's expressions, written as Go writes them whatever the binary's
 * language, over a function's arguments, receiver and results, as DWARF
 * describes them, turned into probe reads (struct probe_value,
 * expr-value.h):
 *
 *   goid                  the goroutine's id (runtime.g.goid through R14);
 *                         where there are no goroutines, the thread's
 *   NAME                  an argument, the receiver or a result (~r0 ...)
 *   X.FIELD               a struct field; through pointers as Go does
 *   X[N]                  element N of a slice or array (N a constant;
 *                         of a slice, guarded by its length)
 *   len(X)                a slice's, string's or map's length (named ones too;
 *                         Rust's Vec, &[T], String, &str, VecDeque,
 *                         HashMap and HashSet)
 *   X.VARIANT             a Rust enum's variant (op.Transfer.cents,
 *                         owner.Some.0), guarded by its discriminant
 *   X.(*T)                interface X's value as a *T (a Rust trait
 *                         object's as the T it points to), guarded by
 *                         its dynamic type (a trait object's vtable
 *                         address, moved by a position-independent
 *                         binary's load bias: struct probe_addrs)
 *   *X                    what pointer X points to (a proto2 *uint64 field)
 *
 * Arguments are where DWARF puts them at the function's probe site (a
 * register or the caller's stack; a C function's frame slot past its
 * prologue); results, which Go's DWARF gives no location, where the
 * register ABI returns them.  The value read must be a boolean or an
 * integer of 1, 2, 4 or 8 bytes: an address would make the output differ
 * from run to run.
 *
 * expr.c parses an expression and walks it (expr-walk.h); what an ABI or
 * a language adds to the walk is its own: expr-go.h (Go's register ABI
 * and runtime types), expr-sysv.h (System V's locations and results, for
 * C, C++ and Rust), expr-rust.h (Rust's types).
 */
#ifndef PROBE_EXPR_H
#define PROBE_EXPR_H

#include "binary.h"
#include "expr-value.h"

/*
 * Resolve @expr in function @func (whose DWARF subprogram is @fn), at a
 * return when @at_exit (results may be named there, not at entry): one
 * of the above.  Returns NULL, or why not (caller frees).
 */
char *probe_expr(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		 int at_exit, struct probe_value *out);

/*
 * The 8-byte word @word of string @expr's bytes (word 0: bytes 0 to 7),
 * as probe_expr() resolves a value; the bytes past the string's length are
 * whatever memory follows it, for the caller to mask.
 */
char *probe_string_word(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
			int at_exit, int word, struct probe_value *out);

/*
 * For "EXPR == nil": the word of @expr that is 0 when it is nil (a
 * pointer, map, chan or func itself, an interface's type word, a slice's
 * array), for the consumer to test; its kind says bool, its read is 8 bytes.
 */
char *probe_nil_word(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		     int at_exit, struct probe_value *out);

/*
 * For an addr field: pointer @expr's value, an address, as an 8-byte
 * unsigned read that the consumer writes only as its object's number.
 */
char *probe_addr_word(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		      int at_exit, struct probe_value *out);

#endif
