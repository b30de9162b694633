/* SPDX-License-Identifier: MIT */
/*
 * What a spec's expression resolves to (expr.h): a probe read (struct
 * gp_read, goprobe.h), the kind and size of the value it reads, and the
 * guards that value is good only under.
 */
#ifndef PROBE_EXPR_VALUE_H
#define PROBE_EXPR_VALUE_H

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

#endif
