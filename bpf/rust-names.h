/* SPDX-License-Identifier: MIT */
/*
 * Rust functions by the names a probe spec gives them: the linkage name
 * demangled by libiberty (cplus_demangle, Rust's legacy and v0 manglings,
 * without the legacy hash or v0's crate disambiguators), an inherent
 * method's <Type>::method written Type::method (crate::module::Type::method).
 * A generic function's instantiation is named with its type arguments as
 * Rust writes them, crate::f::<crate::T> (legacy names lack them: they are
 * DWARF's DW_AT_name, f<crate::T>); its base name, every generic
 * argument list dropped, names every instantiation.
 */
#ifndef RUST_NAMES_H
#define RUST_NAMES_H

#include <elfutils/libdw.h>

struct rust_fn {
	char *name;             /* the instantiation: crate::f::<T> */
	char *base;             /* without generic arguments: crate::f */
	Dwarf_Off die;          /* its DW_TAG_subprogram */
	int inlined;            /* an abstract (inlined) instance */
};

struct rust_index {
	struct rust_fn *fn;
	size_t n, cap;
};

/*
 * Every subprogram of @dw (not declarations), in DIE order; one that is
 * not Rust's (a C function linked in) by its DW_AT_name.
 */
void rust_index_read(Dwarf *dw, struct rust_index *ix);
void rust_index_free(struct rust_index *ix);

/*
 * @linkage demangled and written as a spec names it, @dw_name (DW_AT_name)
 * supplying a legacy name's generic arguments; NULL if it is not Rust's
 * (caller frees).
 */
char *rust_name(const char *linkage, const char *dw_name);
/* @name without its generic argument lists (caller frees). */
char *rust_base(const char *name);

/*
 * The vtable of <@type as @trait>: rustc's DWARF has a variable
 * "<T as Trait>::{vtable}" per codegen unit that made one, at its address
 * in the file.  Their addresses into @addr (at most @max) and T's type
 * (the vtable type's DW_AT_containing_type) into @t; how many, 0 if none
 * (no T is ever a dyn Trait in the binary), -1 if more than @max.
 */
int rust_vtables(Dwarf *dw, const char *type, const char *trait,
		 Dwarf_Addr *addr, int max, Dwarf_Die *t);

#endif
