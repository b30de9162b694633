// SPDX-License-Identifier: MIT
/* What a binary offers a probe spec: see describe.h. */
#include <dwarf.h>
#include <stdbool.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "binary.h"
#include "describe.h"
#include "nearest.h"

/* Go's DW_AT_go_embedded_field (src/cmd/internal/dwarf): a flag on a member. */
#define DW_AT_go_embedded_field 0x2903

static const char *name_of(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

static int type_of(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), t) ? 0 : -1;
}

/* C's types say struct, union, enum (the binary probe_describe() describes is C). */
static int c_types;

/*
 * Type @t as its language writes it: its name (Go's and Rust's types all
 * have one), else built as C does: "struct ledger *", "const char *",
 * "long [4]", "void *" (caller frees).
 */
static char *type_text(Dwarf_Die *t, int depth)
{
	static const struct { int tag; const char *word; } kinds[] = {
		{ DW_TAG_structure_type, "struct " }, { DW_TAG_union_type, "union " },
		{ DW_TAG_enumeration_type, "enum " },
	};
	const char *n = name_of(t);
	int tag = dwarf_tag(t);
	Dwarf_Die inner;
	Dwarf_Word count;
	Dwarf_Attribute a;
	char *in, *text;
	int has_inner = !type_of(t, &inner) && depth < 8;

	for (size_t i = 0; n && c_types && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].tag == tag)
			return xasprintf("%s%s", kinds[i].word, n);
	if (n)
		return xstrdup(n);
	in = has_inner ? type_text(&inner, depth + 1) : xstrdup("void");
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		text = xasprintf("%s %s", in, tag == DW_TAG_pointer_type ? "*" : "&");
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:	/* a const pointer's const follows its star */
		text = has_inner && dwarf_tag(&inner) == DW_TAG_pointer_type ?
		       xasprintf("%s %s", in, tag == DW_TAG_const_type ? "const" : "volatile") :
		       xasprintf("%s %s", tag == DW_TAG_const_type ? "const" : "volatile", in);
		break;
	case DW_TAG_array_type:
		if (dwarf_child(t, &inner) == 0 && !dwarf_formudata(
			dwarf_attr(&inner, DW_AT_count, &a) ? &a :
			dwarf_attr(&inner, DW_AT_upper_bound, &a), &count))
			text = xasprintf("%s [%llu]", in, (unsigned long long)count +
					 (dwarf_hasattr(&inner, DW_AT_count) ? 0 : 1));
		else
			text = xasprintf("%s []", in);
		break;
	case DW_TAG_subroutine_type:
		text = xasprintf("%s (*)()", in);
		break;
	default:
		text = xasprintf("%s", tag == DW_TAG_structure_type ? "struct {...}" :
				 tag == DW_TAG_union_type ? "union {...}" : "?");
	}
	free(in);
	return text;
}

/* The type of @d as type_text() writes it ("?": none), kept until the next call. */
static const char *type_name_of(Dwarf_Die *d)
{
	static char *last;
	Dwarf_Die t;

	free(last);
	last = type_of(d, &t) ? xstrdup("?") : type_text(&t, 0);
	return last;
}

/* Go's DW_AT_go_kind: the type's reflect.Kind. */
#define DW_AT_go_kind 0x2900
#define GO_KIND_STRUCT 25

static long go_kind(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word k;

	return dwarf_formudata(dwarf_attr(t, DW_AT_go_kind, &a), &k) ? -1 : (long)k;
}

/* The struct @d's type is, through one pointer and typedefs: 0, or -1. */
static int struct_of(Dwarf_Die *d, Dwarf_Die *s)
{
	int pointers = 0;

	if (type_of(d, s))
		return -1;
	for (;;) {
		int tag = dwarf_tag(s);

		/* Go's slices, strings and interfaces are structs of their words too */
		if (tag == DW_TAG_structure_type && go_kind(s) >= 0)
			return go_kind(s) == GO_KIND_STRUCT ? 0 : -1;
		if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
		    tag == DW_TAG_union_type)
			return 0;
		if (tag == DW_TAG_typedef && go_kind(s) >= 0 && go_kind(s) != GO_KIND_STRUCT)
			return -1;
		/* C's const and volatile, and C++'s references, on the way */
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type &&
		    ((tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type) || pointers++))
			return -1;
		if (type_of(s, s))
			return -1;
	}
}

/* The functions of @b: every subprogram's name, and those with an abstract (inlined) instance. */
struct functions {
	struct names all, inlined;
};

static void functions_read(struct probe_binary *b, struct functions *f)
{
	memset(f, 0, sizeof(*f));
	probe_function_names(b, &f->all, &f->inlined);
}

static void functions_free(struct functions *f)
{
	names_free(&f->all);
	names_free(&f->inlined);
}

static int matches(const char *pattern, const char *name)
{
	const char *slash = strrchr(name, '/');

	/* a glob names the whole symbol, or it without its package's directories */
	if (strpbrk(pattern, "*?["))
		return !fnmatch(pattern, name, 0) ||
		       (slash && !fnmatch(pattern, slash + 1, 0));
	return strstr(name, pattern) != NULL;
}

/* The functions @pattern matches, one a line; how many. */
static size_t list_functions(const struct functions *f, const char *pattern, FILE *out)
{
	size_t n = 0;

	for (size_t i = 0; i < f->all.n; i++) {
		const char *name = f->all.v[i];

		if (!matches(pattern, name))
			continue;
		fprintf(out, "%s%s\n", name, names_has(&f->inlined, name) ?
			"  (inlined: probe a caller)" : "");
		n++;
	}
	return n;
}

/* One function's DIEs: its out-of-line code, its abstract (inlined) instance. */
struct function {
	const char *name;
	Dwarf_Die code, abstract;
	int has_code, has_abstract;
	struct names callers;   /* the functions it is inlined into */
	size_t ninlined;        /* its inlined instances */
};

static int find_function(Dwarf_Die *d, void *arg)
{
	struct function *f = arg;

	if (dwarf_tag(d) != DW_TAG_subprogram || dwarf_hasattr(d, DW_AT_declaration))
		return 0;
	if (dwarf_hasattr(d, DW_AT_inline)) {
		f->abstract = *d;
		f->has_abstract = 1;
	} else if (!f->has_code++) {
		f->code = *d;
	}
	return 0;
}

/* Inlined instances of @f under @d, inside top-level function @caller. */
static void inlined_under(struct function *f, Dwarf_Die *d, const char *caller)
{
	Dwarf_Die c, origin;
	Dwarf_Attribute a;

	if (dwarf_child(d, &c))
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine &&
		    dwarf_formref_die(dwarf_attr(&c, DW_AT_abstract_origin, &a), &origin) &&
		    dwarf_dieoffset(&origin) == dwarf_dieoffset(&f->abstract)) {
			f->ninlined++;
			names_add(&f->callers, caller);
		}
		inlined_under(f, &c, caller);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int find_inlined(Dwarf_Die *d, const char *caller, const char *base, void *arg)
{
	(void)base;
	if (!dwarf_hasattr(d, DW_AT_inline))
		inlined_under(arg, d, caller);
	return 0;
}

/* Where it can be probed, or why not (the resolver's own refusal). */
static void describe_probe(struct probe_binary *b, struct function *f, int addresses,
			   FILE *out)
{
	struct probe_func gf;
	struct cap_err err;

	if (f->has_abstract) {
		probe_each_function(b, find_inlined, f);
		names_sort(&f->callers);
		fprintf(out, "  inlined: %zu instance%s in %zu function%s%s; a probe on its symbol "
			"would miss them, and capture go refuses it: probe a caller\n",
			f->ninlined, f->ninlined == 1 ? "" : "s", f->callers.n,
			f->callers.n == 1 ? "" : "s", f->has_code ? " (and out of line)" : "");
		for (size_t i = 0; i < f->callers.n; i++)
			fprintf(out, "    %s\n", f->callers.v[i]);
		return;
	}
	if (probe_func(b, f->name, &gf, &err)) {
		fprintf(out, "  probe: refused: %s\n", cap_err_text(&err));
		cap_err_release(&err);
		return;
	}
	fprintf(out, "  probe: entry%s and %d RET site%s (every return)\n",
		gf.check ? " (at the stack check)" : "", gf.nret, gf.nret == 1 ? "" : "s");
	if (gf.tail_call)
		fprintf(out, "  tail call: it may leave by a jump into another function, whose "
			"RET a return event would miss: its return events are refused\n");
	if (!addresses)
		return;
	fprintf(out, "  file offsets: entry %#lx", gf.entry);
	if (gf.check)
		fprintf(out, ", stack check %#lx", gf.check);
	for (int i = 0; i < gf.nret; i++)
		fprintf(out, "%s%#lx", i ? " " : ", RET ", gf.ret[i]);
	if (gf.tail_call)
		fprintf(out, ", tail call %#lx", gf.tail_call);
	fputc('\n', out);
}

static int is_result(Dwarf_Die *p)
{
	Dwarf_Attribute a;
	bool yes = false;

	dwarf_formflag(dwarf_attr_integrate(p, DW_AT_variable_parameter, &a), &yes);
	return yes;
}

static size_t widest(Dwarf_Die *parent, int tag, size_t plus)
{
	Dwarf_Die c;
	size_t w = 0;

	if (dwarf_child(parent, &c) == 0) {
		do {
			const char *n = name_of(&c);

			if (dwarf_tag(&c) == tag && n && strlen(n) + plus > w)
				w = strlen(n) + plus;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return w;
}

/* The arguments (@results 0) or results of @fn, NAME TYPE a line. */
static void describe_params(Dwarf_Die *fn, int results, FILE *out)
{
	size_t w = widest(fn, DW_TAG_formal_parameter, 0);
	int any = 0;
	Dwarf_Die p;

	if (dwarf_child(fn, &p))
		return;
	do {
		const char *n = name_of(&p);

		if (dwarf_tag(&p) != DW_TAG_formal_parameter || !n || is_result(&p) != results)
			continue;
		if (!any++)
			fprintf(out, "  %s:\n", results ? "results (at a return)" : "arguments");
		fprintf(out, "    %-*s  %s\n", (int)w, n, type_name_of(&p));
	} while (dwarf_siblingof(&p, &p) == 0);
}

static int is_embedded(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	bool yes = false;

	dwarf_formflag(dwarf_attr(m, DW_AT_go_embedded_field, &a), &yes);
	return yes;
}

/* The members of embedded struct @m that it promotes, as @path.NAME. */
static void promoted(Dwarf_Die *m, const char *path, FILE *out)
{
	Dwarf_Die s, c;
	int first = 1;

	if (struct_of(m, &s) || dwarf_child(&s, &c))
		return;
	do {
		const char *n = name_of(&c);

		if (dwarf_tag(&c) != DW_TAG_member || !n)
			continue;
		fprintf(out, "%s%s.%s", first ? "; promotes " : ", ", path, n);
		first = 0;
	} while (dwarf_siblingof(&c, &c) == 0);
}

/*
 * Rust's types the spec reads as Go's slices and strings, or by their
 * length (docs/probes.md, "Rust"): their members are their words.
 */
static int rust_container(Dwarf_Die *s)
{
	static const char *const prefixes[] = { "&str", "&[", "&mut [", "Vec<",
		"alloc::string::String", "String", "VecDeque<", "HashMap<", "HashSet<" };
	const char *n = name_of(s);

	for (size_t i = 0; n && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* A Rust enum's variants (its variant part's), as @pn.VARIANT. */
static void describe_variants(Dwarf_Die *s, const char *pn, FILE *out)
{
	Dwarf_Die part, v, m;

	if (dwarf_child(s, &part))
		return;
	do {
		if (dwarf_tag(&part) != DW_TAG_variant_part || dwarf_child(&part, &v))
			continue;
		do {
			if (dwarf_tag(&v) != DW_TAG_variant || dwarf_child(&v, &m) ||
			    !name_of(&m))
				continue;
			fprintf(out, "    %s.%s  variant (%s)\n", pn, name_of(&m), type_name_of(&m));
		} while (dwarf_siblingof(&v, &v) == 0);
	} while (dwarf_siblingof(&part, &part) == 0);
}

/*
 * The fields of @p's struct (through one pointer), as expressions p.FIELD;
 * a Rust enum's variants.
 */
static void describe_fields(Dwarf_Die *p, FILE *out)
{
	const char *pn = name_of(p);
	size_t w;
	Dwarf_Die s, m;

	if (!pn || struct_of(p, &s) || dwarf_child(&s, &m) || rust_container(&s))
		return;
	fprintf(out, "  fields of %s (%s):\n", pn, type_name_of(p));
	w = widest(&s, DW_TAG_member, strlen(pn) + 1);
	do {
		const char *n = name_of(&m);
		char *path;

		if (dwarf_tag(&m) != DW_TAG_member || !n)
			continue;
		path = xasprintf("%s.%s", pn, n);
		fprintf(out, "    %-*s  %s", (int)w, path, type_name_of(&m));
		if (is_embedded(&m)) {
			fputs("  embedded", out);
			promoted(&m, pn, out);
		}
		fputc('\n', out);
		free(path);
	} while (dwarf_siblingof(&m, &m) == 0);
	describe_variants(&s, pn, out);
}

static void describe_function(struct probe_binary *b, struct function *f,
			      int addresses, FILE *out)
{
	Dwarf_Die *fn = f->has_code ? &f->code : &f->abstract;
	Dwarf_Die p;

	fprintf(out, "func %s\n", f->name);
	if (name_of(fn) && strcmp(name_of(fn), f->name) && !probe_is_rust(b))
		fprintf(out, "  the function of symbol %s: DWARF names it %s\n", f->name,
			name_of(fn));
	describe_probe(b, f, addresses, out);
	describe_params(fn, 0, out);
	describe_params(fn, 1, out);
	if (dwarf_child(fn, &p))
		return;
	do {
		if (dwarf_tag(&p) == DW_TAG_formal_parameter)
			describe_fields(&p, out);
	} while (dwarf_siblingof(&p, &p) == 0);
}

/*
 * What a listing without PATTERN shows: Go's package main; a Rust
 * program's own crate (that of its CRATE::main, not std's); a C or C++
 * binary's every function (its DWARF has its own units only).
 */
static const char *default_pattern(struct probe_binary *b, const struct functions *all)
{
	static char crate[256];

	if (probe_abi(b) == PROBE_ABI_GO)
		return "main.*";
	for (size_t i = 0; probe_is_rust(b) && i < all->all.n; i++) {
		const char *n = all->all.v[i], *sep = strstr(n, "::");

		if (sep && !strcmp(sep, "::main") && strncmp(n, "std::", 5) &&
		    (size_t)(sep - n) + 4 < sizeof(crate)) {
			snprintf(crate, sizeof(crate), "%.*s::*", (int)(sep - n), n);
			return crate;
		}
	}
	return "*";
}

int probe_describe(struct probe_binary *b, const char *what, int addresses, FILE *out,
		   struct cap_err *err)
{
	struct function f = { .name = what };
	struct functions all;
	size_t n;

	struct cap_err ignored;

	c_types = !strcmp(probe_language(b), "C") || !strncmp(probe_language(b), "C8", 2) ||
		  !strncmp(probe_language(b), "C9", 2) || !strncmp(probe_language(b), "C1", 2);
	if (what) {
		probe_each_named(b, what, find_function, &f);
		/* a symbol DWARF knows by another name (glibc's aliases) */
		if (!f.has_code && !f.has_abstract && !probe_subprogram(b, what, &f.code, &ignored))
			f.has_code = 1;
		else if (!f.has_code && !f.has_abstract)
			cap_err_release(&ignored);
		if (f.has_code || f.has_abstract) {
			describe_function(b, &f, addresses, out);
			names_free(&f.callers);
			return 0;
		}
	}
	functions_read(b, &all);
	if (!what)
		what = default_pattern(b, &all);
	n = list_functions(&all, what, out);
	if (!n)
		cap_fail(err, EXIT_BAD_INPUT, "%s: no function matches %s%s", probe_path(b),
			 what, names_nearest(&all.all, what));
	functions_free(&all);
	return n ? 0 : -1;
}
