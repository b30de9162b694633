// SPDX-License-Identifier: MIT
/* Rust functions by their demangled names: see rust-names.h. */
#include <ctype.h>
#include <dwarf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "rust-names.h"

/*
 * How @p changes the nesting of a type: a generic list, a tuple or a
 * function's parameters, an array or slice; a fn type's "->" is not a '>'.
 */
static int nest(const char *p)
{
	if (*p == '<' || *p == '(' || *p == '[')
		return 1;
	return (*p == '>' && p[-1] != '-') || *p == ')' || *p == ']' ? -1 : 0;
}

/* The '>' closing the '<' at @p, or NULL. */
static const char *closing(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		depth += nest(p);
		if (!depth)
			return *p == '>' ? p : NULL;
	}
	return NULL;
}

/*
 * <crate::Type>::method (v0's inherent method) as crate::Type::method; a
 * trait's <Type as Trait>::method stays as it is.
 */
static void unwrap_inherent(char *s)
{
	const char *end = *s == '<' ? closing(s) : NULL;
	const char *as = strstr(s, " as ");

	if (!end || strncmp(end + 1, "::", 2) || (as && as < end))
		return;
	memmove((char *)end, end + 1, strlen(end + 1) + 1);
	memmove(s, s + 1, strlen(s));
}

#define MAX_ARGS 16

/*
 * The type arguments of the list <A, B<C>, (D, E), 'a> at @lt (lifetimes
 * left out), into @arg; 0 if there are more than MAX_ARGS (the name is
 * then left without them rather than cut short).
 */
static int arguments(const char *lt, const char *arg[], size_t len[])
{
	const char *end = closing(lt), *p = lt + 1;
	int n = 0, depth = 0;

	for (const char *start = p; end && p <= end; p++) {
		if (p < end)
			depth += nest(p);
		if ((*p != ',' || depth) && p != end)
			continue;
		while (*start == ' ')
			start++;
		if (*start != '\'' && p > start) {
			if (n == MAX_ARGS)
				return 0;
			arg[n] = start;
			len[n++] = (size_t)(p - start);
		}
		start = p + 1;
	}
	return n;
}

static void put_arguments(struct strbuf *sb, const char *arg[], const size_t len[], int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addf(sb, "%s%.*s", i ? ", " : "", (int)len[i], arg[i]);
}

/*
 * A legacy name's type arguments, which its symbol lacks, from DW_AT_name
 * (f<A, B>: a generic impl's parameters first, then the function's own):
 * crate::Type<T>::f as crate::Type<A>::f::<B>.
 */
static char *with_arguments(char *name, const char *dw_name)
{
	const char *lt = dw_name ? strchr(dw_name, '<') : NULL, *arg[MAX_ARGS], *param[MAX_ARGS];
	size_t own = lt ? (size_t)(lt - dw_name) : 0, n = strlen(name), len[MAX_ARGS], plen[MAX_ARGS];
	struct strbuf sb = STRBUF_INIT;
	int nargs, k = 0;
	size_t prefix;

	if (!lt || n < own + 2 || strncmp(name + n - own, dw_name, own) ||
	    strncmp(name + n - own - 2, "::", 2) || !(nargs = arguments(lt, arg, len)))
		return name;
	prefix = n - own - 2;
	/* the impl's parameters: the segment before f ends in <T, U> */
	if (prefix && name[prefix - 1] == '>') {
		const char *open = name + prefix - 1;

		for (int depth = 0; open > name; open--) {
			depth += *open == '>' ? 1 : *open == '<' ? -1 : 0;
			if (!depth)
				break;
		}
		k = arguments(open, param, plen);
		if (k > nargs)
			return name;
		prefix = (size_t)(open - name);
	}
	strbuf_add(&sb, name, prefix);
	if (k) {
		strbuf_addstr(&sb, "<");
		put_arguments(&sb, arg, len, k);
		strbuf_addstr(&sb, ">");
	}
	strbuf_addf(&sb, "::%.*s", (int)own, dw_name);
	if (nargs > k) {
		strbuf_addstr(&sb, "::<");
		put_arguments(&sb, arg + k, len + k, nargs - k);
		strbuf_addstr(&sb, ">");
	}
	free(name);
	return sb.buf;
}

char *rust_name(const char *linkage, const char *dw_name)
{
	char *d;

	if (!linkage || (strncmp(linkage, "_ZN", 3) && strncmp(linkage, "_R", 2)))
		return NULL;
	d = cplus_demangle(linkage, DMGL_RUST);
	if (!d)
		return NULL;
	unwrap_inherent(d);
	if (!strncmp(linkage, "_ZN", 3))
		d = with_arguments(d, dw_name);
	return d;
}

char *rust_base(const char *name)
{
	char *r = xstrdup(name), *o = r;
	const char *p = name;

	while (*p) {
		/* f::<T> and legacy f<T>; a qualified path <T as U> starts a segment */
		int turbofish = !strncmp(p, "::<", 3);
		int after_ident = *p == '<' && p > name &&
				  (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		const char *end = turbofish ? closing(p + 2) : after_ident ? closing(p) : NULL;

		if (end) {
			p = end + 1;
			continue;
		}
		*o++ = *p++;
	}
	*o = 0;
	return r;
}

static const char *attr_string(Dwarf_Die *d, int name)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, name, &a));
}

static void add(void *ctx, Dwarf_Die *d)
{
	struct rust_index *ix = ctx;
	const char *linkage = attr_string(d, DW_AT_linkage_name);
	const char *dw_name = attr_string(d, DW_AT_name);
	char *name;
	struct rust_fn *f;

	if (dwarf_hasattr(d, DW_AT_declaration))
		return;
	if (!linkage)
		linkage = attr_string(d, DW_AT_MIPS_linkage_name);
	name = rust_name(linkage, dw_name);
	if (!name && dw_name)	/* a C function linked into a Rust program */
		name = xstrdup(dw_name);
	if (!name)
		return;
	if (ix->n == ix->cap) {
		ix->cap = ix->cap * 2 + 256;
		ix->fn = xrealloc(ix->fn, ix->cap * sizeof(*ix->fn));
	}
	f = &ix->fn[ix->n++];
	f->name = name;
	f->base = rust_base(name);
	f->die = dwarf_dieoffset(d);
	f->inlined = dwarf_hasattr(d, DW_AT_inline);
}

typedef void visit_fn(void *ctx, Dwarf_Die *d);

/* @visit each DIE of @tag below @d: Rust puts them in namespaces (crate, module). */
static void walk(Dwarf_Die *d, int tag, visit_fn *visit, void *ctx)
{
	Dwarf_Die c;

	if (dwarf_child(d, &c))
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_namespace)
			walk(&c, tag, visit, ctx);
		else if (dwarf_tag(&c) == tag)
			visit(ctx, &c);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* walk() every compile unit of @dw. */
static void walk_units(Dwarf *dw, int tag, visit_fn *visit, void *ctx)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(&cu, tag, visit, ctx);
		off = next;
	}
}

void rust_index_read(Dwarf *dw, struct rust_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	walk_units(dw, DW_TAG_subprogram, add, ix);
}

struct vtables {
	const char *name;
	Dwarf_Addr *addr;
	int n, max;
	Dwarf_Die *t;
};

/* Variable @d, if it is the vtable sought: its address, and T. */
static void vtable(void *ctx, Dwarf_Die *d)
{
	struct vtables *v = ctx;
	Dwarf_Attribute a;
	Dwarf_Die vt;
	Dwarf_Op *ops;
	size_t nops;
	const char *n = dwarf_diename(d);

	if (!n || strcmp(n, v->name) || !dwarf_attr(d, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_addr ||
	    !dwarf_formref_die(dwarf_attr(d, DW_AT_type, &a), &vt) ||
	    !dwarf_formref_die(dwarf_attr(&vt, DW_AT_containing_type, &a), v->t))
		return;
	if (v->n >= 0 && v->n < v->max)
		v->addr[v->n++] = ops[0].number;
	else
		v->n = -1;
}

int rust_vtables(Dwarf *dw, const char *type, const char *trait,
		 Dwarf_Addr *addr, int max, Dwarf_Die *t)
{
	char *name = xasprintf("<%s as %s>::{vtable}", type, trait);
	struct vtables v = { .name = name, .addr = addr, .max = max, .t = t };

	walk_units(dw, DW_TAG_variable, vtable, &v);
	free(name);
	return v.n;
}

void rust_index_free(struct rust_index *ix)
{
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->fn[i].name);
		free(ix->fn[i].base);
	}
	free(ix->fn);
	memset(ix, 0, sizeof(*ix));
}
