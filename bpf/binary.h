/* SPDX-License-Identifier: MIT */
/*
 * A binary the probes read (Go, C, C++ or Rust), resolved for uprobes from
 * its ELF and DWARF (libelf, libdw) and its machine code (capstone): where
 * a function's entry, prologue stack check and RET instructions are in the
 * file, and where a struct member is.  Nothing is hard-coded: a different Go or raft version moves
 * offsets and the resolver follows.  Failures return -1 (NULL) with @err
 * (capture/err.h) naming the binary and the function or type: a binary
 * without DWARF (EXIT_BAD_INPUT), a missing function or member, or a
 * target that the compiler inlined somewhere (probing its symbol would
 * silently miss the inlined calls).
 */
#ifndef PROBE_BINARY_H
#define PROBE_BINARY_H

#define PROBE_MAX_RETS 64

struct probe_binary;
struct cap_err;

struct probe_func {
	unsigned long start;          /* file offset of the first instruction */
	unsigned long entry;          /* file offset of the entry's probe: the
				       * first instruction, or (System V) past
				       * the prologue (sysv-resolve.h) */
	unsigned long check;          /* file offset of the stack-check JBE, 0: none */
	unsigned long entry_pc;       /* the address of the entry's probe (the
				       * check's, or the entry's) in the file:
				       * the probe's address less it is the load
				       * bias */
	unsigned long ret[PROBE_MAX_RETS]; /* file offsets of RET instructions */
	int nret;
	unsigned long tail_call;      /* file offset of a jump that leaves the
				       * function (a tail call returns through
				       * another's RET): to an address out of it,
				       * or (System V) through a GOT entry; 0: none */
	int uretprobe;                /* System V: its returns are the kernel's
				       * uretprobe's, at @start (engine.h): any
				       * optimized function's (probed at its
				       * first instruction, where a jump through
				       * a register may be a tail call), and one
				       * with a tail call, no RET or more than
				       * PROBE_MAX_RETS; else its RETs' */
};

#include <elfutils/libdw.h>
#include <libelf.h>

/*
 * Which ABI the binary's code follows, from its compile units'
 * DW_AT_language: Go if any is Go (a cgo program has C units too), else
 * System V for C and C++ (bpf/sysv-resolve.h); any other language is
 * refused by probe_open().
 */
enum probe_abi { PROBE_ABI_GO, PROBE_ABI_SYSV };

struct probe_binary *probe_open(const char *path, struct cap_err *err);
void probe_close(struct probe_binary *b);

/* Where @name can be probed (a function without a RET too: it may have no return event). */
int probe_func(struct probe_binary *b, const char *name, struct probe_func *out,
	       struct cap_err *err);
/* Where function @d (named @name, for messages) can be probed. */
int probe_func_die(struct probe_binary *b, Dwarf_Die *d, const char *name,
		   struct probe_func *out, struct cap_err *err);
/* @name's DWARF subprogram (not an inlined one). */
int probe_subprogram(struct probe_binary *b, const char *name, Dwarf_Die *out,
		     struct cap_err *err);
/*
 * The instantiations of generic function @name (main.Put): the symbols
 * NAME[SHAPES] Go compiles it to, one per shape of its type arguments
 * (main.Put[go.shape.string,go.shape.int]); Rust's by their base name
 * (crate::f: crate::f::<crate::T>, ...); not inlined ones.  Up to @max
 * names (caller frees) into @names; returns how many there are.
 */
int probe_instances(struct probe_binary *b, const char *name, char **names, int max);
/*
 * Pointer type @name ("*main.memLog") as DWARF gives it, and the address
 * of its type descriptor (runtime.types plus its DW_AT_go_runtime_type),
 * which an interface's itab points to when it holds one: 0; -1 if the binary has no such type
 * (or descriptor); -2 if its addresses are not where the file says (a
 * position-independent executable).
 */
int go_pointer_type(struct probe_binary *b, const char *name, Dwarf_Die *out,
		    unsigned long *desc);
const char *probe_path(const struct probe_binary *b);
/* The separate debug file its DWARF is read from (bpf/debuginfo.h), or NULL. */
const char *probe_debug_path(const struct probe_binary *b);
Dwarf *probe_dwarf(struct probe_binary *b);
/* The ELF of the code (not of a separate debug file): segments, notes, CFI. */
Elf *probe_elf(struct probe_binary *b);
/* Its variables with a fixed address (bpf/dwarf-vars.h), read once. */
struct probe_vars;
const struct probe_vars *probe_variables(struct probe_binary *b);
/* Call @fn on every top-level DIE of every CU until it returns nonzero. */
int probe_each_die(struct probe_binary *b, int (*fn)(Dwarf_Die *, void *), void *arg);
/*
 * Call @fn on every function's DW_TAG_subprogram with the name a spec
 * gives it and (Rust) its generic base name (bpf/rust-names.h; else the
 * name again) until it returns nonzero: Go's and C's top-level ones,
 * Rust's demangled, in their namespaces.
 */
int probe_each_function(struct probe_binary *b,
			int (*fn)(Dwarf_Die *, const char *name, const char *base, void *),
			void *arg);
/*
 * Call @fn on each function's DIE named @name as a spec names it (or, in
 * Rust, whose generic base name it is), in DIE order, until it returns
 * nonzero: an index's lookup, not a walk.
 */
int probe_each_named(struct probe_binary *b, const char *name,
		     int (*fn)(Dwarf_Die *, void *), void *arg);
/*
 * Every function's name as a spec names it into @all, a generic one's
 * base name too, and those with an abstract (inlined) instance into
 * @inlined unless it is NULL; each sorted (bpf/nearest.h).
 */
struct names;
void probe_function_names(struct probe_binary *b, struct names *all,
			  struct names *inlined);
/*
 * " (did you mean A, B or C?)": @b's functions, or its variables, nearest
 * @name, or "" (nearest.h: a static buffer).
 */
const char *probe_nearest_function(struct probe_binary *b, const char *name);
const char *probe_nearest_variable(struct probe_binary *b, const char *name);
/* Is the binary Rust's (its names demangled, its types Rust's)? */
int probe_is_rust(const struct probe_binary *b);
/* Byte offset of @member in struct @type ("go.etcd.io/raft/v3.raft"), or -1. */
long probe_member(struct probe_binary *b, const char *type, const char *member,
		  struct cap_err *err);
/* Hex GNU/Go build id note, or "" (static buffer owned by @b). */
const char *go_build_id(struct probe_binary *b);
/* The GNU build id note in hex, or "" (static buffer owned by @b). */
const char *probe_gnu_build_id(struct probe_binary *b);
enum probe_abi probe_abi(const struct probe_binary *b);
/* The language the ABI was chosen from, as DWARF names it: "Go", "C11", ... */
const char *probe_language(const struct probe_binary *b);

#endif
