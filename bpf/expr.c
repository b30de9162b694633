// SPDX-License-Identifier: MIT
/* A spec's expressions resolved to probe reads through DWARF: see expr.h. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "dwarf-vars.h"
#include "expr-go.h"
#include "expr-rust.h"
#include "expr-sysv.h"
#include "expr-walk.h"
#include "expr.h"
#include "nearest.h"
#include "sysv-resolve.h"

/* An argument's location at the function's first instruction, in pieces. */
static char *arg_pieces(struct walk *w, Dwarf_Die *param, Dwarf_Addr pc,
			const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	int off = 0, have = 0;
	struct piece cur = { 0 };

	Dwarf_Op block[MAX_OPS];

	/* A single expression holds everywhere; a list, where it says. */
	if (!dwarf_attr(param, DW_AT_location, &a) ||
	    (go_block_ops(&a, block, &nops) ?
	     dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) < 1 : !(ops = block)))
		return probe_abi(w->b) == PROBE_ABI_SYSV ?
		       walk_why(w, "argument %s of %s is optimized out at the probe site "
				"(DWARF gives it no location there)", name, w->func) :
		       walk_why(w, "argument %s has no location at the function's entry",
				name);
	for (size_t i = 0; i < nops; i++) {
		char *e;

		if (ops[i].atom == DW_OP_piece) {
			if (have && w->npieces < MAX_PIECES) {
				cur.off = off;
				cur.size = (int)ops[i].number;
				w->piece[w->npieces++] = cur;
			}
			off += (int)ops[i].number;
			have = 0;
			cur = (struct piece){ 0 };
			continue;
		}
		if (probe_abi(w->b) == PROBE_ABI_SYSV) {
			e = sysv_arg_op(w, &ops[i], pc, name, &cur);
			have = 1;
		} else {
			e = go_arg_op(w, &ops[i], name, &cur, &have);
		}
		if (e)
			return e;
	}
	if (have && w->npieces < MAX_PIECES) {
		cur.off = off;
		cur.size = 1 << 20;
		w->piece[w->npieces++] = cur;
	}
	w->is_arg_reg = 1;
	return NULL;
}

/* Start at argument or result @name. */
static char *start(struct walk *w, Dwarf_Die *fn, const char *name, int at_exit)
{
	Dwarf_Addr pc;
	Dwarf_Die p;

	w->at_exit = at_exit;
	if (probe_abi(w->b) == PROBE_ABI_SYSV && !strcmp(name, "~r0"))
		return at_exit ? sysv_result_pieces(w, fn) :
		       walk_why(w, "result %s is only known at a return", name);
	if (probe_abi(w->b) == PROBE_ABI_SYSV) {
		struct cap_err err;

		if (sysv_probe_pc(probe_path(w->b), fn, &pc, &err))
			return xstrdup(err.msg);
	} else if (dwarf_lowpc(fn, &pc)) {
		return walk_why(w, "the function has no code address or arguments");
	}
	if (dwarf_child(fn, &p))
		return walk_why(w, "the function has no code address or arguments");
	do {
		Dwarf_Attribute a;
		bool is_result = false;
		const char *n = dwarf_diename(&p);

		if (dwarf_tag(&p) != DW_TAG_formal_parameter || !n || strcmp(n, name))
			continue;
		dwarf_formflag(dwarf_attr(&p, DW_AT_variable_parameter, &a), &is_result);
		if (is_result && !at_exit)
			return walk_why(w, "result %s is only known at a return", name);
		if (is_result)
			return go_result_pieces(w, fn, name);
		if (sub_type(&p, &w->type))
			return walk_why(w, "argument %s has no type", name);
		return arg_pieces(w, &p, pc, name);
	} while (dwarf_siblingof(&p, &p) == 0);
	return walk_why(w, "the function has no argument or result %s%s", name,
			nearest_child(fn, DW_TAG_formal_parameter, name));
}

/* Is @name one of @fn's arguments or results (System V's ~r0 too)? */
static int is_param(Dwarf_Die *fn, const char *name)
{
	Dwarf_Die p;

	if (!strcmp(name, "~r0") || dwarf_child(fn, &p))
		return !strcmp(name, "~r0");
	do {
		const char *n = dwarf_diename(&p);

		if (dwarf_tag(&p) == DW_TAG_formal_parameter && n && !strcmp(n, name))
			return 1;
	} while (dwarf_siblingof(&p, &p) == 0);
	return 0;
}

/*
 * Start at variable @var, each of its pieces (dwarf-vars.h) at its address in
 * the file less the entry probe's, from the probe's own address (GP_IP):
 * a position-independent binary's load bias cancels out, and no
 * /proc/PID/maps is read.  A return reads from the entry's address,
 * saved as an argument register is (a RET's own would need its own offset).
 */
static char *at_variable(struct walk *w, Dwarf_Die *var, const char *name)
{
	struct probe_var_piece p[PROBE_VAR_PIECES];
	struct probe_func gf;
	struct cap_err err;
	int n;
	char *e = probe_var_pieces(var, p, &n);

	if (e) {
		char *r = walk_why(w, "%s", e);

		free(e);
		return r;
	}
	if (sub_type(var, &w->type))
		return walk_why(w, "variable %s has no type", name);
	if (probe_func_die(w->b, w->fn, w->func, &gf, &err)) {
		e = walk_why(w, "%s", cap_err_text(&err));
		cap_err_release(&err);
		return e;
	}
	for (int i = 0; i < n; i++) {
		long long off = (long long)p[i].addr - (long long)gf.entry_pc;

		if (off < INT_MIN || off > INT_MAX)
			return walk_why(w, "variable %s is further than a read's offset reaches "
					"from the function's code (%lld bytes)", name, off);
		w->piece[i] = (struct piece){ .off = p[i].off, .size = p[i].size, .mem = 1,
					      .reg = GP_IP, .off0 = (int)off };
	}
	w->npieces = n;
	w->is_arg_reg = w->is_var = 1;
	return NULL;
}

/* What a variable's name may hold: Go's package paths, C++'s and Rust's ::. */
static int var_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_./:-", c));
}

/*
 * The variable the expression at @p names, the longest name that is one
 * (main.counter of main.counter.hits); *@end past it.  NULL with *@found
 * 0 if it names none; else why not, or NULL with *@found 1.
 */
static char *variable(struct walk *w, const char *p, const char **end, int *found)
{
	size_t n = 0;
	char *e = NULL;

	*found = 0;
	while (var_char(p[n]))
		n++;
	for (; n && !*found && !e; n--) {
		char *name;
		Dwarf_Die var;
		int rc;

		if (var_char(p[n]) && p[n] != '.')
			continue;       /* a name ends before a '.', '[' or ')' */
		name = xasprintf("%.*s", (int)n, p);
		rc = probe_var_find(probe_dwarf(w->b), probe_variables(w->b), w->fn, name,
				    &var, &e);
		if (rc == -1) {
			char *r = walk_why(w, "%s", e);

			free(e);
			e = r;
		} else if (rc == 1) {
			*found = 1;
			*end = p + n;
			e = at_variable(w, &var, name);
		}
		free(name);
	}
	return e;
}

/*
 * Start at the expression's first name @name (at @p): an argument or a
 * result, else a variable (variable()); *@end past it.  Neither: why,
 * with the nearest variables where no argument is near.
 */
static char *first(struct walk *w, Dwarf_Die *fn, const char *p, const char *name,
		   int at_exit, const char **end)
{
	size_t n = strlen(name);
	int found = 0;
	char *e = NULL, *head;
	const char *near;

	w->at_exit = at_exit;
	*end = p + n;
	if (is_param(fn, name))
		return start(w, fn, name, at_exit);
	if ((e = variable(w, p, end, &found)) || found)
		return e;
	if (!(e = start(w, fn, name, at_exit)) || strstr(e, "(did you mean"))
		return e;
	for (n = 0; var_char(p[n]); n++)
		;
	head = xasprintf("%.*s", (int)n, p);
	near = probe_nearest_variable(w->b, head);
	if (*near) {
		free(e);
		e = walk_why(w, "%s has no argument or result %s, and the binary no variable %s%s",
			     w->func, name, head, near);
	}
	free(head);
	return e;
}

static char *assertion(struct walk *w, const char *type);

/*
 * Member @name of the struct the value is (or points to): a Rust enum's
 * variant, a tuple's field by its number, a field Go promotes from an
 * embedded struct.
 */
static char *member(struct walk *w, const char *name)
{
	char tuple[MAX_NAME];
	Dwarf_Die m;
	char *e;

	if (rust_is_atomic_ptr(w) && find_member(&w->type, name, &m) &&
	    (e = rust_atomic_ptr(w)))
		return e;
	if (dwarf_tag(&w->type) == DW_TAG_pointer_type && (e = walk_deref(w, 0)))
		return e;
	if (probe_is_rust(w->b) && !rust_variant_part(&w->type, &m))
		return rust_to_variant(w, &m, name);
	if (probe_is_rust(w->b) && isdigit((unsigned char)*name)) {
		snprintf(tuple, sizeof(tuple), "__%s", name);   /* a tuple's field */
		name = tuple;
	}
	if (probe_abi(w->b) == PROBE_ABI_GO && is_aggregate(&w->type) &&
	    find_member(&w->type, name, &m) && go_promoted(w, name, &e))
		return e;
	return walk_field(w, name);
}

static int is_slice(struct walk *w)
{
	enum rust_seq k = rust_seq_of(w);

	return k == RUST_SLICE || k == RUST_VEC || go_is_slice(&w->type);
}

static int is_string(struct walk *w)
{
	enum rust_seq k = rust_seq_of(w);

	return k == RUST_STR || k == RUST_STRING || go_is_string(&w->type);
}

/* A Rust collection with a length but no elements the probe reads. */
static int is_collection(struct walk *w)
{
	enum rust_seq k = rust_seq_of(w);

	return k == RUST_DEQUE || k == RUST_HASHED;
}

/*
 * To a sequence's length: Go's len, Rust's length (a slice), len (a Vec,
 * a VecDeque) or the items of a HashMap's or HashSet's table.
 */
static char *seq_len(struct walk *w)
{
	enum rust_seq k = rust_seq_of(w);

	return k != RUST_NONE ? rust_seq_len(w, k) : member(w, "len");
}

/*
 * To a sequence's data pointer, its element type into @elem: Go's array
 * (a string's str), Rust's data_ptr or a Vec's first pointer (of u8: the
 * element type is the Vec's T).
 */
static char *seq_data(struct walk *w, Dwarf_Die *elem)
{
	enum rust_seq k = rust_seq_of(w);
	char *e;

	if (k == RUST_VEC || k == RUST_STRING)
		return rust_vec_data(w, k, elem);
	e = member(w, k != RUST_NONE ? "data_ptr" : go_is_string(&w->type) ? "str" : "array");
	if (!e && sub_type(&w->type, elem))
		e = walk_why(w, "%s: no element type", type_name(&w->type));
	return e;
}

/* @elem, a sequence's element type, is a byte: a []byte's bytes read as a string's. */
static int is_byte(Dwarf_Die *elem)
{
	Dwarf_Word size;

	return !peel(elem) && dwarf_tag(elem) == DW_TAG_base_type &&
	       !dwarf_aggregate_size(elem, &size) && size == 1;
}

/*
 * Element @i of @esize bytes within what a read's offset (an int) reaches:
 * NULL, else why not (a wrapped offset would read another element).
 */
static char *reachable(struct walk *w, long i, Dwarf_Word esize)
{
	if (esize && (Dwarf_Word)i > (Dwarf_Word)INT_MAX / esize)
		return walk_why(w, "index %ld: further than a read's offset reaches (%d bytes)",
				i, INT_MAX);
	return NULL;
}

/* An array's length: DW_AT_count (Go's), or DW_AT_upper_bound + 1 (C's). */
static int array_count(Dwarf_Die *sub, Dwarf_Word *count)
{
	Dwarf_Attribute a;

	if (!dwarf_formudata(dwarf_attr(sub, DW_AT_count, &a), count))
		return 0;
	if (dwarf_formudata(dwarf_attr(sub, DW_AT_upper_bound, &a), count))
		return -1;
	++*count;
	return 0;
}

/* Element @i of a slice or array. */
static char *element(struct walk *w, long i)
{
	struct walk at;
	Dwarf_Word esize, count;
	Dwarf_Die sub;
	char *e;

	if ((e = rust_autoderef(w)))
		return e;
	if (dwarf_tag(&w->type) == DW_TAG_array_type) {
		if (sub_type(&w->type, &sub) || dwarf_aggregate_size(&sub, &esize) ||
		    dwarf_child(&w->type, &sub) || array_count(&sub, &count))
			return walk_why(w, "array %s has no element size or length",
					type_name(&w->type));
		if ((Dwarf_Word)i >= count)
			return walk_why(w, "index out of the bounds of %s", type_name(&w->type));
		if ((e = reachable(w, i, esize)))
			return e;
		sub_type(&w->type, &w->type);
		peel(&w->type);
		walk_advance(w, i * (long)esize);
		return NULL;
	}
	if (is_collection(w))
		return walk_why(w, "%s: its elements are not read (a VecDeque's [N] is at its "
				"head plus N, modulo its capacity), only its len()", type_name(&w->type));
	if (!is_slice(w))
		return walk_why(w, "%s is neither a slice nor an array", type_name(&w->type));
	at = *w;
	if ((e = seq_len(&at)) ||
	    (e = walk_guard(w, &at, PROBE_GUARD_ABOVE, (unsigned long)i, 8)))
		return e;
	if ((e = seq_data(w, &sub)))
		return e;
	if (dwarf_aggregate_size(&sub, &esize))
		return walk_why(w, "%s: no element size", type_name(&w->type));
	if ((e = reachable(w, i, esize)) || (e = walk_deref(w, i * (long)esize)))
		return e;
	w->type = sub;
	peel(&w->type);
	return NULL;
}

/*
 * An atomic read by its value, Go's sync/atomic types and Rust's integer
 * atomics: 1 if @w was one (now at its value), 0 if not.
 */
static int atomic_value(struct walk *w, int *is_bool)
{
	*is_bool = 0;
	if (dwarf_tag(&w->type) != DW_TAG_structure_type)
		return 0;
	if (probe_is_rust(w->b) && rust_atomic(w, is_bool))
		return 1;
	return go_atomic(w, is_bool);
}

/* A C enum as its underlying integer type (DWARF 5's DW_AT_type). */
static int enum_base(Dwarf_Die *t)
{
	if (sub_type(t, t))
		return -1;
	peel(t);
	return 0;
}

/* The final value: a boolean or an integer that fits a read. */
static char *finish(struct walk *w, struct probe_value *out)
{
	Dwarf_Attribute a;
	Dwarf_Word enc, size;
	enum probe_kind kind;
	Dwarf_Die vp;
	char *e;
	char atomic[MAX_NAME];
	int is_bool;

	snprintf(atomic, sizeof(atomic), "%s", type_name(&w->type));
	if (atomic_value(w, &is_bool) && is_bool) {
		if (!w->mem && (e = walk_place(w)))
			return e;
		snprintf(out->type, sizeof(out->type), "%s", atomic);
		walk_take(w, PROBE_KIND_BOOL, 1, out);
		return NULL;
	}

	if ((e = rust_autoderef(w)))	/* a &T or Box<T> reads the T */
		return e;
	if (probe_is_rust(w->b) && !rust_variant_part(&w->type, &vp))
		return rust_enum_value(w, &vp, out);
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w->type));
	if (dwarf_tag(&w->type) == DW_TAG_enumeration_type && enum_base(&w->type))
		return walk_why(w, "enum %s: DWARF gives it no underlying type (DWARF 5 "
				"does: -gdwarf-5)", out->type);
	if (dwarf_tag(&w->type) == DW_TAG_pointer_type || rust_is_atomic_ptr(w))
		return walk_why(w, "%s is an address, which differs from run to run: read a field through it",
				type_name(&w->type));
	if (dwarf_tag(&w->type) != DW_TAG_base_type ||
	    dwarf_formudata(dwarf_attr(&w->type, DW_AT_encoding, &a), &enc) ||
	    dwarf_aggregate_size(&w->type, &size) ||
	    (enc != DW_ATE_boolean && enc != DW_ATE_signed && enc != DW_ATE_unsigned &&
	     enc != DW_ATE_signed_char && enc != DW_ATE_unsigned_char) ||
	    (size != 1 && size != 2 && size != 4 && size != 8))
		return walk_why(w, "%s is not a boolean or an integer", type_name(&w->type));
	if (!w->mem && (e = walk_place(w)))
		return e;
	if (w->is_int)
		snprintf(out->type, sizeof(out->type), "int");
	kind = enc == DW_ATE_boolean ? PROBE_KIND_BOOL :
	       enc == DW_ATE_signed || enc == DW_ATE_signed_char || w->is_int ?
	       PROBE_KIND_SIGNED : PROBE_KIND_UNSIGNED;
	w->rd.bit_off = (unsigned char)w->bit_off;
	w->rd.bit_size = (unsigned char)w->bit_size;
	w->rd.bit_signed = w->bit_size && kind == PROBE_KIND_SIGNED;
	walk_take(w, kind, (int)size, out);
	return NULL;
}

/* x.(*T): a Go interface's value, or a Rust trait object's, as a *T. */
static char *assertion(struct walk *w, const char *type)
{
	char trait[MAX_NAME];

	if (probe_is_rust(w->b) && rust_trait_object(&w->type, trait))
		return rust_dyn_assertion(w, trait, type);
	return go_assertion(w, type);
}

/* An identifier at @p (Go's, plus ~ for unnamed results), copied to @buf. */
static const char *ident(const char *p, char *buf)
{
	size_t n = 0;

	while ((isalnum((unsigned char)*p) || *p == '_' || *p == '~') && n < MAX_NAME - 1)
		buf[n++] = *p++;
	buf[n] = 0;
	return p;
}

/* X, then .FIELD and [N] selectors. */
static char *path(struct walk *w, Dwarf_Die *fn, const char *p, int at_exit,
		  const char **end)
{
	char name[MAX_NAME];
	char *e;

	ident(p, name);
	if (!name[0])
		return walk_why(w, "expected a name");
	if ((e = first(w, fn, p, name, at_exit, &p)))
		return e;
	peel(&w->type);
	for (;;) {
		if (p[0] == '.' && p[1] == '(') {
			const char *close = strchr(p, ')');

			if (!close || close - p - 2 >= MAX_NAME)
				return walk_why(w, "expected .(*TYPE)");
			snprintf(name, sizeof(name), "%.*s", (int)(close - p - 2), p + 2);
			p = close + 1;
			e = assertion(w, name);
		} else if (*p == '.') {
			p = ident(p + 1, name);
			if (!name[0])
				return walk_why(w, "expected a field name after '.'");
			e = member(w, name);
		} else if (*p == '[') {
			char *q;
			long i;

			errno = 0;
			i = strtol(p + 1, &q, 10);
			if (q == p + 1 || *q != ']' || i < 0 || errno)
				return walk_why(w, "expected [N], N a constant index");
			p = q + 1;
			e = element(w, i);
		} else {
			break;
		}
		if (e)
			return e;
	}
	*end = p;
	return NULL;
}

static const char *func_name(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_name, &a));

	return n ? n : "?";
}

char *probe_expr(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		 int at_exit, struct probe_value *out)
{
	struct walk w = { .b = b, .fn = fn, .expr = expr, .func = func_name(fn) };
	const char *p = expr, *end = NULL;
	int is_len = !strncmp(expr, "len(", 4), star = *expr == '*';
	char *e;

	if (!strcmp(expr, "goid"))
		return probe_abi(b) == PROBE_ABI_SYSV ? sysv_thread_id(out) : go_goid(b, out);
	memset(out, 0, sizeof(*out));
	if (is_len || star)
		p += is_len ? 4 : 1;
	if ((e = path(&w, fn, p, at_exit, &end)))
		return e;
	if (star && (e = walk_deref(&w, 0)))
		return e;
	if (is_len) {
		if (*end != ')')
			return walk_why(&w, "expected ')' after len(...");
		end++;
		const char *count = go_map_count(&w.type);

		if ((e = rust_autoderef(&w)))
			return e;
		if (count) {
			if ((e = member(&w, count)))
				return e;
			w.is_int = 1;
		} else if (!is_slice(&w) && !is_string(&w) && !is_collection(&w)) {
			return walk_why(&w, "len of %s: only %s have one here", type_name(&w.type),
					probe_is_rust(b) ? "slices, strings, Vecs, VecDeques, HashMaps and "
					"HashSets" : "slices, strings and maps");
		} else if ((e = seq_len(&w))) {
			return e;
		}
	}
	if (*end)
		return walk_why(&w, "unexpected '%s'", end);
	return finish(&w, out);
}

/* @expr, a path with nothing after it. */
static char *whole_path(struct walk *w, Dwarf_Die *fn, const char *expr, int at_exit)
{
	const char *end = NULL;
	char *e = path(w, fn, expr, at_exit, &end);

	if (!e && *end)
		e = walk_why(w, "unexpected '%s'", end);
	return e;
}

char *probe_string_word(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
			int at_exit, int word, struct probe_value *out)
{
	struct walk w = { .b = b, .fn = fn, .expr = expr, .func = func_name(fn) };
	char *e;

	memset(out, 0, sizeof(*out));
	Dwarf_Die elem;

	if ((e = whole_path(&w, fn, expr, at_exit)) || (e = rust_autoderef(&w)))
		return e;
	int bytes = !is_string(&w) && is_slice(&w);

	if (!bytes && !is_string(&w))
		return walk_why(&w, "%s is neither a string nor a []byte", type_name(&w.type));
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w.type));
	if ((e = seq_data(&w, &elem)))
		return e;
	if (bytes && !is_byte(&elem))
		return walk_why(&w, "%s is neither a string nor a []byte", out->type);
	if ((e = walk_deref(&w, 8L * word)))
		return e;
	walk_take(&w, PROBE_KIND_UNSIGNED, 8, out);
	return NULL;
}

char *probe_addr_word(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		      int at_exit, struct probe_value *out)
{
	struct walk w = { .b = b, .fn = fn, .expr = expr, .func = func_name(fn) };
	char *e;

	memset(out, 0, sizeof(*out));
	if ((e = whole_path(&w, fn, expr, at_exit)))
		return e;
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w.type));
	if (dwarf_tag(&w.type) != DW_TAG_pointer_type)
		return walk_why(&w, "%s is no pointer: an addr field reads one", type_name(&w.type));
	if (!w.mem && (e = walk_place(&w)))
		return e;
	walk_take(&w, PROBE_KIND_UNSIGNED, 8, out);
	return NULL;
}

char *probe_nil_word(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		     int at_exit, struct probe_value *out)
{
	struct walk w = { .b = b, .fn = fn, .expr = expr, .func = func_name(fn) };
	const char *word;
	char *e;

	memset(out, 0, sizeof(*out));
	if ((e = whole_path(&w, fn, expr, at_exit)))
		return e;
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w.type));
	if (go_iface_word(&w.type, &word))
		e = member(&w, word);
	else if (go_is_slice(&w.type))
		e = member(&w, "array");
	else if (dwarf_tag(&w.type) != DW_TAG_pointer_type)
		return walk_why(&w, "%s is never nil: a nil test takes a pointer, an interface, a map or a slice",
				type_name(&w.type));
	if (e || (!w.mem && (e = walk_place(&w))))
		return e;
	walk_take(&w, PROBE_KIND_BOOL, 8, out);
	out->size = 1;          /* a bool, from the 8-byte word */
	return NULL;
}
