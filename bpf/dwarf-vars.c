// SPDX-License-Identifier: MIT
/* Variables with a fixed address, by a probe spec's names: see dwarf-vars.h. */
#include <dwarf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "dwarf-vars.h"

static const char *name_of(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

/* Flag @at of @d, or (@integrate) of the declaration it completes. */
static int flag(Dwarf_Die *d, int at, int integrate)
{
	Dwarf_Attribute a;
	bool v = false;

	return !dwarf_formflag(integrate ? dwarf_attr_integrate(d, at, &a) :
			       dwarf_attr(d, at, &a), &v) && v;
}

/*
 * A variable with a place of its own: defined here, not declared (gcc's
 * definition of a variable a header declared is a DIE of its own, whose
 * DW_AT_specification is the declaration: its name and type are there).
 */
static int is_defined(Dwarf_Die *d)
{
	return dwarf_tag(d) == DW_TAG_variable && !flag(d, DW_AT_declaration, 0) &&
	       (dwarf_hasattr(d, DW_AT_location) || dwarf_hasattr(d, DW_AT_const_value));
}

static void add(struct probe_vars *vs, Dwarf_Die *d, const char *name, const char *file,
		Dwarf_Off cu)
{
	if (vs->n == vs->cap) {
		vs->cap = vs->cap ? 2 * vs->cap : 256;
		vs->v = xrealloc(vs->v, vs->cap * sizeof(*vs->v));
	}
	vs->v[vs->n++] = (struct probe_var){ .name = xstrdup(name), .file = xstrdup(file),
					     .die = dwarf_dieoffset(d), .cu = cu,
					     .external = flag(d, DW_AT_external, 1) };
}

/* @parent's variables, and its namespaces' as PREFIX::NS::NAME. */
static void read_scope(struct probe_vars *vs, Dwarf_Die *parent, const char *prefix,
		       const char *file, Dwarf_Off cu)
{
	Dwarf_Die d;

	if (dwarf_child(parent, &d))
		return;
	do {
		const char *n = name_of(&d);
		char *full;

		if (!n || (dwarf_tag(&d) != DW_TAG_namespace && !is_defined(&d)))
			continue;
		full = *prefix ? xasprintf("%s::%s", prefix, n) : xstrdup(n);
		if (dwarf_tag(&d) == DW_TAG_namespace)
			read_scope(vs, &d, full, file, cu);
		else
			add(vs, &d, full, file, cu);
		free(full);
	} while (dwarf_siblingof(&d, &d) == 0);
}

void probe_vars_read(Dwarf *dw, struct probe_vars *vs)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *file, *slash;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			file = name_of(&cu) ? name_of(&cu) : "";
			slash = strrchr(file, '/');
			read_scope(vs, &cu, "", slash ? slash + 1 : file, off + hsize);
		}
		off = next;
	}
}

void probe_vars_free(struct probe_vars *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].name);
		free(vs->v[i].file);
	}
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}

/* A variable @name defined in @scope or its lexical blocks (a C function's static). */
static int in_scope(Dwarf_Die *scope, const char *name, Dwarf_Die *var)
{
	Dwarf_Die d;

	if (dwarf_child(scope, &d))
		return 0;
	do {
		const char *n = name_of(&d);

		if (dwarf_tag(&d) == DW_TAG_lexical_block && in_scope(&d, name, var))
			return 1;
		if (is_defined(&d) && n && !strcmp(n, name) &&
		    dwarf_hasattr(&d, DW_AT_location)) {
			struct probe_var_piece p[PROBE_VAR_PIECES];
			int np;
			char *e = probe_var_pieces(&d, p, &np);

			free(e);
			if (!e) {       /* a static, not a local on the stack */
				*var = d;
				return 1;
			}
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

int probe_var_find(Dwarf *dw, const struct probe_vars *vs, Dwarf_Die *fn,
		   const char *name, Dwarf_Die *var, char **e)
{
	const char *colons = strstr(name, "::");
	size_t flen = colons ? (size_t)(colons - name) : 0;
	int file_form = colons && memchr(name, '.', flen);
	Dwarf_Die cu;
	Dwarf_Off own = dwarf_diecu(fn, &cu, NULL, NULL) ? dwarf_dieoffset(&cu) : 0;
	const struct probe_var *one = NULL, *unit = NULL, *ext = NULL;
	struct strbuf files = STRBUF_INIT;
	int n = 0, next = 0;

	*e = NULL;
	if (!colons && in_scope(fn, name, var))
		return 1;
	for (size_t i = 0; i < vs->n; i++) {
		const struct probe_var *v = &vs->v[i];

		if (file_form ? strcmp(v->name, colons + 2) || strlen(v->file) != flen ||
				strncmp(v->file, name, flen) : strcmp(v->name, name))
			continue;
		n++;
		one = v;
		unit = v->cu == own ? v : unit;
		next += v->external;
		ext = v->external ? v : ext;
		strbuf_addf(&files, "%s%s::%s", n > 1 ? ", " : "", v->file, v->name);
	}
	one = n == 1 ? one : unit ? unit : next == 1 ? ext : NULL;
	if (!one && n)
		*e = xasprintf("%s is defined in %d files, none the probed function's: name "
			       "one as FILE::NAME (%s)", name, n, files.buf);
	strbuf_release(&files);
	if (!one)
		return n ? -1 : 0;
	return dwarf_offdie(dw, one->die, var) ? 1 : 0;
}

/* DWARF 5's DW_OP_addrx (clang's): the address in .debug_addr. */
static int indexed(Dwarf_Attribute *a, Dwarf_Op *op, Dwarf_Addr *addr)
{
	Dwarf_Attribute r;

	return dwarf_getlocation_attr(a, op, &r) || dwarf_formaddr(&r, addr) ? -1 : 0;
}

/* Go writes a variable's location as a DW_FORM_block1 libdw reads as no location. */
static int block_addr(Dwarf_Attribute *a, Dwarf_Addr *addr)
{
	Dwarf_Block b;

	if (dwarf_whatform(a) != DW_FORM_block1 || dwarf_formblock(a, &b) ||
	    b.length != 9 || b.data[0] != DW_OP_addr)
		return -1;
	*addr = 0;
	for (int i = 8; i >= 1; i--)
		*addr = *addr << 8 | b.data[i];
	return 0;
}

/* Operation @op of location @a, an address: 0 and *@addr, else -1. */
static int address(Dwarf_Attribute *a, Dwarf_Op *op, Dwarf_Addr *addr)
{
	if (op->atom == DW_OP_addr) {
		*addr = op->number;
		return 0;
	}
	return (op->atom == DW_OP_addrx || op->atom == DW_OP_GNU_addr_index) ?
	       indexed(a, op, addr) : -1;
}

/* The pieces of location @ops: each an address, then DW_OP_piece; a gap none. */
static char *pieces(const char *n, Dwarf_Attribute *a, Dwarf_Op *ops, size_t nops,
		    struct probe_var_piece *p, int *np)
{
	int off = 0, have = 0;
	Dwarf_Addr addr = 0;

	*np = 0;
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].atom != DW_OP_piece) {
			if (have || address(a, &ops[i], &addr))
				return xasprintf("variable %s is not at a fixed address (DW_OP "
						 "%#x): a local, or computed", n, ops[i].atom);
			have = 1;
			continue;
		}
		if (have && *np == PROBE_VAR_PIECES)
			return xasprintf("variable %s is in more than %d pieces", n,
					 PROBE_VAR_PIECES);
		if (have)
			p[(*np)++] = (struct probe_var_piece){ addr, off, (int)ops[i].number };
		off += (int)ops[i].number;
		have = 0;
	}
	if (have)       /* one address: all of it */
		p[(*np)++] = (struct probe_var_piece){ addr, off, 1 << 20 };
	return *np ? NULL : xasprintf("variable %s: DWARF gives it no address", n);
}

char *probe_var_pieces(Dwarf_Die *var, struct probe_var_piece *p, int *n)
{
	const char *name = name_of(var) ? name_of(var) : "?";
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(var, DW_AT_location, &a))
		return xasprintf("variable %s has no address: %s", name,
				 dwarf_hasattr(var, DW_AT_const_value) ?
				 "the compiler folded it to a constant" :
				 "DWARF gives it no location (optimized out?)");
	if (!block_addr(&a, &p[0].addr)) {
		p[0].off = 0;
		p[0].size = 1 << 20;
		*n = 1;
		return NULL;
	}
	if (dwarf_getlocation(&a, &ops, &nops) || nops < 1)
		return xasprintf("variable %s: DWARF gives it no single location", name);
	for (size_t i = 1; i < nops; i++)
		if (ops[i].atom == DW_OP_form_tls_address ||
		    ops[i].atom == DW_OP_GNU_push_tls_address)
			return xasprintf("variable %s is thread-local: each thread has its "
					 "own, at an address the probe cannot compute", name);
	return pieces(name, &a, ops, nops, p, n);
}
