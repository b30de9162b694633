// SPDX-License-Identifier: MIT
/* Rust's part of an expression's walk: see expr-rust.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "expr-rust.h"
#include "rust-names.h"
#include "sysv-resolve.h"

/*
 * A Rust enum with data: a struct whose DW_TAG_variant_part (into @vp)
 * holds a DW_TAG_variant per variant, each with one member named after
 * the variant (its fields' struct), and names the discriminant's member
 * (DW_AT_discr): a tag, or a niche in another variant's field
 * (Option<Box<T>>'s pointer, 0 for None).  0, or -1 if @t is none.
 */
int rust_variant_part(Dwarf_Die *t, Dwarf_Die *vp)
{
	if (dwarf_tag(t) != DW_TAG_structure_type || dwarf_child(t, vp))
		return -1;
	do {
		if (dwarf_tag(vp) == DW_TAG_variant_part)
			return 0;
	} while (dwarf_siblingof(vp, vp) == 0);
	return -1;
}

/* The discriminant's offset in the enum and its size in bytes. */
static char *discriminant(struct walk *w, Dwarf_Die *vp, long *off, int *size)
{
	Dwarf_Attribute a;
	Dwarf_Word loc, bytes;
	Dwarf_Die d, t;

	if (!dwarf_formref_die(dwarf_attr(vp, DW_AT_discr, &a), &d) ||
	    dwarf_formudata(dwarf_attr(&d, DW_AT_data_member_location, &a), &loc) ||
	    sub_type(&d, &t) || peel(&t) || dwarf_aggregate_size(&t, &bytes) ||
	    (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
		return walk_why(w, "enum %s: DWARF gives its discriminant no place or size",
				type_name(&w->type));
	*off = (long)loc;
	*size = (int)bytes;
	return NULL;
}

/*
 * The variants of @vp into @v (names, discriminants: DW_AT_discr_value,
 * none for the one that takes every other value), the member of each into
 * @m; how many, or -1 (DW_AT_discr_list's ranges, too many).
 */
static int variants(Dwarf_Die *vp, int size, struct rust_variant *v, Dwarf_Die *m)
{
	Dwarf_Die var;
	int n = 0;

	if (dwarf_child(vp, &var))
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Word k;
		const char *name;

		if (dwarf_tag(&var) != DW_TAG_variant)
			continue;
		if (n == RUST_MAX_VARIANTS || dwarf_hasattr(&var, DW_AT_discr_list) ||
		    dwarf_child(&var, &m[n]) || dwarf_tag(&m[n]) != DW_TAG_member ||
		    !(name = dwarf_diename(&m[n])))
			return -1;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		v[n].has_value = !dwarf_formudata(dwarf_attr(&var, DW_AT_discr_value, &a), &k);
		v[n].value = size == 8 ? k : k & ((1ull << (8 * size)) - 1);
		n++;
	} while (dwarf_siblingof(&var, &var) == 0);
	return n;
}

/* The enum's variants, discriminant and members: NULL, or why not. */
static char *enum_parts(struct walk *w, Dwarf_Die *vp, long *off, int *size,
			struct rust_variant *v, Dwarf_Die *m, int *n)
{
	char *e = discriminant(w, vp, off, size);

	if (e)
		return e;
	*n = variants(vp, *size, v, m);
	return *n < 0 ? walk_why(w, "enum %s: variants the probe cannot tell apart "
				 "(discriminant ranges, or more than %d)", type_name(&w->type),
				 RUST_MAX_VARIANTS) : NULL;
}

/*
 * Variant @name of the enum @vp is the variant part of: its fields'
 * struct, read only when the discriminant selects it (equal to its value;
 * a variant without one: unequal to every other's).
 */
char *rust_to_variant(struct walk *w, Dwarf_Die *vp, const char *name)
{
	struct rust_variant v[RUST_MAX_VARIANTS];
	Dwarf_Die m[RUST_MAX_VARIANTS];
	struct strbuf names = STRBUF_INIT;
	struct walk at;
	Dwarf_Attribute a;
	Dwarf_Word loc;
	long off;
	int size, n, k;
	char *e = enum_parts(w, vp, &off, &size, v, m, &n);

	for (k = 0; !e && k < n && strcmp(v[k].name, name); k++)
		;
	if (!e && k == n) {
		for (int i = 0; i < n; i++)
			strbuf_addf(&names, "%s%s", i ? ", " : "", v[i].name);
		e = walk_why(w, "enum %s has no variant %s (its variants: %s)",
			     type_name(&w->type), name, names.buf ? names.buf : "none");
		strbuf_release(&names);
	}
	if (e)
		return e;
	at = *w;
	walk_advance(&at, off);
	for (int i = 0; i < n && !e; i++)
		if (v[k].has_value ? i == k : i != k && v[i].has_value)
			e = walk_guard(w, &at, v[k].has_value ? PROBE_GUARD_EQUAL :
				       PROBE_GUARD_UNEQUAL, v[i].value, size);
	if (e)
		return e;
	if (dwarf_formudata(dwarf_attr(&m[k], DW_AT_data_member_location, &a), &loc) ||
	    sub_type(&m[k], &w->type))
		return walk_why(w, "variant %s has no offset or type", name);
	peel(&w->type);
	walk_advance(w, (long)loc);
	return NULL;
}

/* An enum read whole: its discriminant, and the variants it selects. */
char *rust_enum_value(struct walk *w, Dwarf_Die *vp, struct probe_value *out)
{
	Dwarf_Die m[RUST_MAX_VARIANTS];
	long off;
	int size;
	char *e = enum_parts(w, vp, &off, &size, out->variant, m, &out->nvariants);

	if (e)
		return e;
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w->type));
	walk_advance(w, off);
	if (!w->mem && (e = walk_place(w)))
		return e;
	walk_take(w, PROBE_KIND_UNSIGNED, size, out);
	return NULL;
}

/* A Rust AtomicPtr<T>: its fields are T's, through the pointer in its cell. */
int rust_is_atomic_ptr(struct walk *w)
{
	return probe_is_rust(w->b) && dwarf_tag(&w->type) == DW_TAG_structure_type &&
	       !strncmp(type_name(&w->type), "AtomicPtr<", 10);
}

/* Rust's sequences and collections, as rustc's DWARF describes them. */
static enum rust_seq seq_kind(Dwarf_Die *t)
{
	Dwarf_Die m;
	const char *n = type_name(t);

	if (dwarf_tag(t) != DW_TAG_structure_type)
		return RUST_NONE;
	/* &[T], &str: a fat pointer, its data_ptr and length */
	if (!find_member(t, "data_ptr", &m) && !find_member(t, "length", &m))
		return !strcmp(n, "&str") || !strcmp(n, "&mut str") ? RUST_STR : RUST_SLICE;
	if (!strncmp(n, "Vec<", 4) && !find_member(t, "buf", &m) && !find_member(t, "len", &m))
		return RUST_VEC;
	if (!strcmp(n, "String") && !find_member(t, "vec", &m))
		return RUST_STRING;
	if (!strncmp(n, "VecDeque<", 9) && !find_member(t, "head", &m) &&
	    !find_member(t, "len", &m))
		return RUST_DEQUE;
	/* std's (base: hashbrown's), or hashbrown's own */
	if (!strncmp(n, "HashMap<", 8) || !strncmp(n, "HashSet<", 8))
		return RUST_HASHED;
	return RUST_NONE;
}

enum rust_seq rust_seq_of(struct walk *w)
{
	return probe_is_rust(w->b) ? seq_kind(&w->type) : RUST_NONE;
}

/*
 * A Rust value through its references and Boxes (pointers in DWARF), as
 * Rust's auto-deref reads v[0] and v.len() of a &Vec<T>.
 */
char *rust_autoderef(struct walk *w)
{
	char *e = NULL;

	while (!e && probe_is_rust(w->b) && dwarf_tag(&w->type) == DW_TAG_pointer_type)
		e = walk_deref(w, 0);
	return e;
}

/* Where a path of members ends: at member @name of type @t, or not. */
typedef int path_end(const char *name, Dwarf_Die *t);

static int is_pointer(const char *name, Dwarf_Die *t)
{
	(void)name;
	return dwarf_tag(t) == DW_TAG_pointer_type;
}

/* an integer or a bool: the value inside a Rust atomic's cell */
static int is_base(const char *name, Dwarf_Die *t)
{
	(void)name;
	return dwarf_tag(t) == DW_TAG_base_type;
}

/* hashbrown's RawTableInner's count of its items */
static int is_items(const char *name, Dwarf_Die *t)
{
	return !strcmp(name, "items") && dwarf_tag(t) == DW_TAG_base_type;
}

/*
 * The path of members from struct @t to the first member @end takes,
 * depth first: a Vec's first pointer, buf.inner.ptr.pointer.pointer
 * (RawVec's, as rustc's library has it today: found, not assumed), a
 * HashMap's base.table.table.items.  Its depth, or 0.
 */
static int member_path(Dwarf_Die *t, char path[][MAX_NAME], int depth, path_end *end)
{
	Dwarf_Die m, mt;

	if (depth == MAX_EMBED || dwarf_child(t, &m))
		return 0;
	do {
		const char *n = dwarf_diename(&m);
		int k;

		if (dwarf_tag(&m) != DW_TAG_member || !n || sub_type(&m, &mt))
			continue;
		peel(&mt);
		snprintf(path[0], MAX_NAME, "%s", n);
		if (end(n, &mt))
			return 1;
		if (dwarf_tag(&mt) == DW_TAG_structure_type &&
		    (k = member_path(&mt, path + 1, depth + 1, end)))
			return k + 1;
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

/* To the end of member_path(@end) from the value, or why not. */
static char *along(struct walk *w, path_end *end, const char *what)
{
	char path[MAX_EMBED][MAX_NAME];
	int n = member_path(&w->type, path, 0, end);
	char *e = n ? NULL : walk_why(w, "%s: DWARF gives it no %s", type_name(&w->type), what);

	for (int i = 0; !e && i < n; i++)
		e = walk_member(w, path[i]);
	return e;
}

char *rust_atomic_ptr(struct walk *w)
{
	return along(w, is_pointer, "pointer in its cell");
}

/* A Vec's element type: its template parameter T. */
static int vec_element(Dwarf_Die *vec, Dwarf_Die *elem)
{
	Dwarf_Die c;

	if (dwarf_child(vec, &c))
		return -1;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_template_type_parameter && n && !strcmp(n, "T"))
			return sub_type(&c, elem);
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

char *rust_seq_len(struct walk *w, enum rust_seq k)
{
	char *e = k == RUST_STRING ? walk_member(w, "vec") : NULL;

	if (e)
		return e;
	w->is_int = 1;   /* usize, an int as Go's len is */
	if (k == RUST_HASHED)
		return along(w, is_items, "count of its items (hashbrown's RawTable items)");
	return walk_member(w, k == RUST_SLICE || k == RUST_STR ? "length" : "len");
}

char *rust_vec_data(struct walk *w, enum rust_seq k, Dwarf_Die *elem)
{
	Dwarf_Die vec;
	char *e;

	if (k == RUST_STRING && (e = walk_member(w, "vec")))
		return e;
	vec = w->type;
	if (vec_element(&vec, elem))
		return walk_why(w, "%s: DWARF gives no element type", type_name(&vec));
	return along(w, is_pointer, "data pointer");
}

/* Rust's integer atomics (core::sync::atomic), read by their value. */
static int is_atomic(const char *n)
{
	static const char *const types[] = { "AtomicBool", "AtomicU8", "AtomicU16",
		"AtomicU32", "AtomicU64", "AtomicUsize", "AtomicI8", "AtomicI16",
		"AtomicI32", "AtomicI64", "AtomicIsize" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(n, types[i]))
			return 1;
	return 0;
}

int rust_atomic(struct walk *w, int *is_bool)
{
	const char *n = type_name(&w->type);
	char *e;

	if (!is_atomic(n))
		return 0;
	*is_bool = !strcmp(n, "AtomicBool");
	e = along(w, is_base, "integer in its cell");
	free(e);
	return !e;
}

/*
 * A Rust trait object (&dyn Trait, Box<dyn Trait>: a struct of a pointer
 * to a "dyn Trait" and a vtable): its trait's name into @trait, from
 * "dyn Trait" or "dyn Trait + Send" (the vtable is the first trait's).
 */
int rust_trait_object(Dwarf_Die *t, char *trait)
{
	Dwarf_Die p, d;
	const char *n, *plus;

	if (dwarf_tag(t) != DW_TAG_structure_type || find_member(t, "pointer", &p) ||
	    find_member(t, "vtable", &d) || sub_type(&p, &p) ||
	    dwarf_tag(&p) != DW_TAG_pointer_type || sub_type(&p, &d) ||
	    strncmp(n = type_name(&d), "dyn ", 4))
		return 0;
	n += 4;
	plus = strstr(n, " + ");
	snprintf(trait, MAX_NAME, "%.*s", plus ? (int)(plus - n) : (int)strlen(n), n);
	return 1;
}

/*
 * x.(*T) of a Rust trait object: what its pointer points to, as a T,
 * guarded by its vtable: one of <T as Trait>'s (the probe's address
 * tells a position-independent binary's load bias, expr-value.h).
 */
char *rust_dyn_assertion(struct walk *w, const char *trait, const char *type)
{
	Dwarf_Addr addr[PROBE_MAX_ADDRS], pc;
	struct probe_guard *g = &w->guard[w->nguards];
	struct cap_err err;
	struct walk at;
	Dwarf_Die t;
	char *e;
	int n;

	if (*type != '*')
		return walk_why(w, ".(%s): a trait object is asserted to point to a type, .(*T)", type);
	n = rust_vtables(probe_dwarf(w->b), type + 1, trait, addr, PROBE_MAX_ADDRS, &t);
	if (n == 0)
		return walk_why(w, ".(%s): no vtable of <%s as %s> in the binary's DWARF (no %s is "
				"ever a dyn %s there)", type, type + 1, trait, type + 1, trait);
	if (n < 0)
		return walk_why(w, ".(%s): more than %d vtables of <%s as %s> (one per codegen unit)",
				type, PROBE_MAX_ADDRS, type + 1, trait);
	if (sysv_probe_pc(probe_path(w->b), w->fn, &pc, &err))
		return xstrdup(err.msg);
	at = *w;
	if ((e = walk_member(&at, "vtable")) || (e = walk_guard(w, &at, PROBE_GUARD_ONE_OF, 0, 8)))
		return e;
	for (int i = 0; i < n; i++)
		g->one_of.a[i] = addr[i];
	g->one_of.n = n;
	g->one_of.pc = pc;
	if ((e = walk_member(w, "pointer")) || (e = walk_deref(w, 0)))
		return e;
	w->type = t;
	peel(&w->type);
	return NULL;
}
