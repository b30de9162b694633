/* SPDX-License-Identifier: MIT */
/*
 * Rust's part of an expression's walk (expr-walk.h), its types as
 * rustc's DWARF describes them over the System V ABI (expr-sysv.h):
 * enums with data (a variant's fields, guarded by the discriminant, or
 * the enum read whole), references and Boxes followed as auto-deref
 * does, slices, strings, Vecs, VecDeques, HashMaps and HashSets by their
 * length and data, integer atomics and AtomicPtr by what their cell
 * holds, trait objects asserted to a type by their vtable.  Each returns
 * NULL, or why not, as the walk's moves do.
 */
#ifndef PROBE_EXPR_RUST_H
#define PROBE_EXPR_RUST_H

#include "expr-walk.h"

/* Is @t an enum with data?  Its DW_TAG_variant_part into *@vp: 0, or -1. */
int rust_variant_part(Dwarf_Die *t, Dwarf_Die *vp);
/* Variant @name's fields of the enum @vp is the variant part of. */
char *rust_to_variant(struct walk *w, Dwarf_Die *vp, const char *name);
/* The enum @vp is the variant part of, read whole: its discriminant and variants. */
char *rust_enum_value(struct walk *w, Dwarf_Die *vp, struct probe_value *out);

/* The value's references and Boxes followed to what they point to. */
char *rust_autoderef(struct walk *w);

enum rust_seq { RUST_NONE, RUST_SLICE, RUST_STR, RUST_VEC, RUST_STRING, RUST_DEQUE,
		RUST_HASHED };

/* The sequence or collection the value is (RUST_NONE: none, or not a Rust binary). */
enum rust_seq rust_seq_of(struct walk *w);
/* To sequence @k's length, an int. */
char *rust_seq_len(struct walk *w, enum rust_seq k);
/* To a Vec's (@k RUST_VEC) or String's data pointer, its element type into @elem. */
char *rust_vec_data(struct walk *w, enum rust_seq k, Dwarf_Die *elem);

/* Is the value an AtomicPtr<T>?  rust_atomic_ptr(): to the pointer in its cell. */
int rust_is_atomic_ptr(struct walk *w);
char *rust_atomic_ptr(struct walk *w);
/*
 * Rust's AtomicBool, AtomicU8 ... AtomicIsize: 1 if the value is one, now
 * at the integer in its cell (v.value today: found, not assumed), an
 * AtomicBool's a u8 that is 0 or 1 (*@is_bool); 0 if not.
 */
int rust_atomic(struct walk *w, int *is_bool);

/* Is @t a trait object (&dyn Trait, Box<dyn Trait>)?  Its trait into @trait (MAX_NAME). */
int rust_trait_object(Dwarf_Die *t, char *trait);
/* x.(*@type) of the trait object the value is, a dyn @trait. */
char *rust_dyn_assertion(struct walk *w, const char *trait, const char *type);

#endif
