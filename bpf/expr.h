/* SPDX-License-Identifier: MIT */
/*
 * Go expressions over a function's arguments, receiver and results, as
 * DWARF describes them, turned into probe reads (struct gp_read):
 *
 *   goid                  the goroutine's id (runtime.g.goid through R14)
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
 *                         its dynamic type
 *   *X                    what pointer X points to (a proto2 *uint64 field)
 *
 * Arguments are where DWARF puts them at the function's first
 * instruction (a register or the caller's stack); results, which Go's
 * DWARF gives no location, where the register ABI returns them.  The value
 * read must be a boolean or an integer of 1, 2, 4 or 8 bytes: an address
 * would make the output differ from run to run.
 */
#ifndef PROBE_EXPR_H
#define PROBE_EXPR_H

#include "binary.h"
#include "goprobe.h"

enum probe_kind { PROBE_KIND_SIGNED, PROBE_KIND_UNSIGNED, PROBE_KIND_BOOL };

#define PROBE_MAX_GUARDS 4

/*
 * What a value's read is good only under, checked by the consumer: the
 * 8-byte value of @rd above @k (an index below a slice's length), or
 * equal to it (an interface's dynamic type, a Rust enum's variant), or
 * unequal (a variant that takes every value the others do not), or one
 * of @one_of's addresses (a Rust trait object's vtable).  Otherwise (or when @rd is
 * nil) the value is missing, never what the read found there.
 */
enum probe_guard_op {
	PROBE_GUARD_ABOVE, PROBE_GUARD_EQUAL, PROBE_GUARD_UNEQUAL, PROBE_GUARD_ONE_OF
};

#define PROBE_MAX_ADDRS 8

/*
 * Addresses in the binary's file, @a[0..@n) (the copies of one vtable
 * that rustc's codegen units made), each moved by the load bias of a
 * position-independent binary: the probe's GP_IP less @pc, the entry
 * site's address in the file, rounded down to a page (GP_IP is the
 * probe's address on the kernels measured; a kernel reporting the byte
 * past its trap gives the same bias).
 */
struct probe_addrs {
	unsigned long long a[PROBE_MAX_ADDRS];
	int n;
	unsigned long long pc;
};

struct probe_guard {
	struct gp_read rd;
	int is_arg_reg;         /* as probe_value's */
	enum probe_guard_op op;
	unsigned long long k;
	struct probe_addrs one_of;
};

#define RUST_MAX_VARIANTS 32

/* A Rust enum's variant: its name, and the discriminant that selects it. */
struct rust_variant {
	char name[64];
	unsigned long long value;
	int has_value;          /* 0: every value no other variant has */
};

struct probe_value {
	struct gp_read rd;      /* src GP_SRC_REG or GP_SRC_STACK, as at entry */
	int is_arg_reg;         /* starts from an argument's register: at a
				 * return, read it from the saved arguments */
	enum probe_kind kind;
	int size;               /* bytes */
	char type[128];         /* the Go type's name, for messages */
	struct probe_guard guard[PROBE_MAX_GUARDS];
	int nguards;
	/* A Rust enum read whole: rd reads its discriminant, which selects
	 * one of these (a table's field names them). */
	struct rust_variant variant[RUST_MAX_VARIANTS];
	int nvariants;
};

/*
 * Where a value is read: at the entry, at a RET, or at a uretprobe (the
 * return as the kernel's uretprobe sees it, after the RET: the frame is
 * gone, engine.h).
 */
enum { PROBE_AT_ENTRY, PROBE_AT_RET, PROBE_AT_RETPROBE };

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
