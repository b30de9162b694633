// SPDX-License-Identifier: MIT
/* Go expressions resolved to probe reads through DWARF: see expr.h. */
#include <ctype.h>
#include <stdarg.h>
#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "describe.h"
#include "dwarf-vars.h"
#include "expr.h"
#include "rust-names.h"
#include "sysv-resolve.h"

#define MAX_PIECES 16
#define MAX_NAME 128
#define MAX_OPS 32
#define MAX_DEREF 3

/*
 * Part of a value in a register or on the stack (@stack: SP + @off0), or
 * (@mem) in memory at register @reg + @off0 (a System V frame's slot).
 * With @nderef, that address holds a pointer (DW_OP_deref), and the value
 * is at it plus @doff[0], which holds the next pointer if there is one.
 */
struct piece {
	int off, size;
	int stack, mem, reg, off0;
	int nderef, doff[MAX_DEREF];
};

/*
 * Where the expression's value is so far.  Until it goes through a pointer
 * (!mem) it is the argument itself, in pieces (registers, or one stack
 * span); @voff is the byte within it.  Then (mem) it is in memory at the
 * address rd describes (goprobe.h).
 */
struct walk {
	struct probe_binary *b;
	Dwarf_Die *fn;
	const char *expr, *func;
	struct piece piece[MAX_PIECES];
	int npieces, voff, mem, is_arg_reg;
	int bit_off, bit_size;  /* a C bit-field's bits in the unit read */
	struct gp_read rd;
	Dwarf_Die type;
	struct probe_guard guard[PROBE_MAX_GUARDS];
	int nguards;
	int is_int;             /* a len: an int, whatever the field counting it */
	int at_exit;            /* read at a return */
	int is_var;             /* it starts at a variable */
};

/* "EXPR: why", for the caller to report with the spec's file:line. */
static __attribute__((format(printf, 2, 3)))
char *why(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	char *m, *r;

	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = xstrdup(fmt);
	va_end(ap);
	r = xasprintf("%s: %s", w->expr, m);
	free(m);
	return r;
}

static const char *type_name(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(t, DW_AT_name, &a));

	return n ? n : "?";
}

/* @t without typedefs (Go's named non-struct types). */
static int peel(Dwarf_Die *t)
{
	return dwarf_peel_type(t, t);
}

static int sub_type(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), out) ?
	       0 : -1;
}

/* Go's DWARF register numbers (amd64) to the probe's registers. */
static int go_reg(unsigned dw)
{
	static const int map[16] = { GP_RAX, -1, GP_RCX, GP_RBX, GP_RSI, GP_RDI,
		-1, -1, GP_R8, GP_R9, GP_R10, GP_R11, -1, -1, GP_R14, -1 };

	return dw < 16 ? map[dw] : -1;
}

/*
 * A location given as a DW_FORM_block1 expression, which Go writes for a
 * location that holds everywhere (a stack argument) and libdw refuses in
 * DWARF 4 ("not a location list value"): decoded here, the few operations
 * Go puts there.  Returns -1 if @a is no such block.
 */
static int block_ops(Dwarf_Attribute *a, Dwarf_Op *ops, size_t *nops)
{
	Dwarf_Block b;
	size_t i = 0, n = 0;

	if (dwarf_whatform(a) != DW_FORM_block1 || dwarf_formblock(a, &b))
		return -1;
	while (i < b.length && n < MAX_OPS) {
		Dwarf_Op *op = &ops[n++];
		unsigned char byte;
		int shift = 0;

		*op = (Dwarf_Op){ .atom = b.data[i++] };
		if (op->atom != DW_OP_fbreg && op->atom != DW_OP_piece &&
		    op->atom != DW_OP_plus_uconst)
			continue;
		/* One LEB128 operand: signed for fbreg. */
		do {
			if (i >= b.length)
				return -1;
			byte = b.data[i++];
			op->number |= (Dwarf_Word)(byte & 0x7f) << shift;
			shift += 7;
		} while ((byte & 0x80) && shift < 64);
		if (op->atom == DW_OP_fbreg && shift < 64 && (byte & 0x40))
			op->number |= ~(Dwarf_Word)0 << shift;
	}
	*nops = n;
	return 0;
}

/*
 * An operation on the address a location computed so far (@cur, in
 * memory): DW_OP_deref (8 bytes: a pointer) makes the address the pointer
 * stored there, as a debug build's argument passed by reference is found
 * through its slot; DW_OP_plus_uconst moves it.  0 for any other; else
 * 1, and in @e why the probe cannot follow it, or NULL.
 */
static int address_op(struct walk *w, const Dwarf_Op *op, const char *name,
		      struct piece *cur, char **e)
{
	int *last = cur->nderef ? &cur->doff[cur->nderef - 1] : &cur->off0;

	*e = NULL;
	if (op->atom == DW_OP_plus_uconst && op->number <= (Dwarf_Word)(INT_MAX - *last)) {
		*last += (int)op->number;
		return 1;
	}
	if (op->atom != DW_OP_deref && !(op->atom == DW_OP_deref_size && op->number == 8))
		return 0;
	if (cur->nderef == MAX_DEREF)
		*e = why(w, "argument %s of %s: a location through more than %d "
			 "pointers", name, w->func, MAX_DEREF);
	else
		cur->doff[cur->nderef++] = 0;
	return 1;
}

/*
 * An argument in a slot of the function's own frame, read at a return
 * the kernel's uretprobe sees: the frame is gone, below the stack pointer,
 * where the uretprobe's trampoline pushes registers.  (A caller's stack
 * argument, above it, is still there.)
 */
static char *dead_slot(struct walk *w, const char *name)
{
	return why(w, "argument %s of %s is in a slot of its frame, which is gone "
		   "where the kernel's uretprobe sees the return (a jump may leave "
		   "%s: a tail call): read it at the entry", name, w->func, w->func);
}

/*
 * One operation of a System V location at @pc into @cur: a register, a
 * register plus an offset (DW_OP_breg*) or the frame base plus one
 * (DW_OP_fbreg), as a stack slot when the register is SP.
 */
static char *sysv_op(struct walk *w, const Dwarf_Op *op, Dwarf_Addr pc,
		     const char *name, struct piece *cur)
{
	unsigned a = op->atom;
	long off = 0;
	int reg = -1;
	char *e;

	if ((cur->stack || cur->mem) && address_op(w, op, name, cur, &e))
		return e;
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		cur->reg = sysv_reg(a - DW_OP_reg0);
		return cur->reg < 0 ? why(w, "argument %s is in a register the probe "
					  "cannot read", name) : NULL;
	}
	if (a == DW_OP_fbreg) {
		if ((e = sysv_frame_base(w->b, w->fn, pc, &reg, &off))) {
			char *r = why(w, "argument %s of %s: %s", name, w->func, e);

			free(e);
			return r;
		}
		off += (long)(Dwarf_Sword)op->number;
	} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		reg = sysv_reg(a - DW_OP_breg0);
		off = (long)(Dwarf_Sword)op->number;
	} else {
		return why(w, "argument %s of %s is computed at the probe site "
			   "(DW_OP %#x), not stored: the probe cannot read it", name,
			   w->func, a);
	}
	if (reg == -1)
		return why(w, "argument %s is based on a register the probe cannot read",
			   name);
	if (w->at_exit == PROBE_AT_RETPROBE && reg != SYSV_SP && a == DW_OP_fbreg)
		return dead_slot(w, name);
	if (reg == SYSV_SP && w->at_exit) {
		/*
		 * SP at the probe site (after a prologue) is not SP at the
		 * return: CFA - 8 at a RET, the CFA where a uretprobe sees it
		 * (the RET popped the return address)
		 */
		long k;

		if ((e = sysv_cfa_above_sp(w->b, pc, &k))) {
			char *r = why(w, "argument %s of %s, in a stack slot, at a return: %s",
				      name, w->func, e);

			free(e);
			return r;
		}
		if (w->at_exit == PROBE_AT_RETPROBE && off < k)
			return dead_slot(w, name);
		off += (w->at_exit == PROBE_AT_RETPROBE ? 0 : 8) - k;
	}
	cur->stack = reg == SYSV_SP;
	cur->mem = !cur->stack;
	cur->reg = cur->mem ? reg : 0;
	cur->off0 = (int)off;
	return NULL;
}

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
	    (block_ops(&a, block, &nops) ?
	     dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) < 1 : !(ops = block)))
		return probe_abi(w->b) == PROBE_ABI_SYSV ?
		       why(w, "argument %s of %s is optimized out at the probe site "
			   "(DWARF gives it no location there)", name, w->func) :
		       why(w, "argument %s has no location at the function's entry",
			   name);
	for (size_t i = 0; i < nops; i++) {
		unsigned op = ops[i].atom;

		if (probe_abi(w->b) == PROBE_ABI_SYSV && op != DW_OP_piece) {
			char *e = sysv_op(w, &ops[i], pc, name, &cur);

			if (e)
				return e;
			have = 1;
		} else if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			cur.reg = go_reg(op - DW_OP_reg0);
			if (cur.reg < 0)
				return why(w, "argument %s is in a register the probe cannot read",
					   name);
			have = 1;
		} else if (op == DW_OP_fbreg) {
			/* The frame base is the CFA: SP + 8 at entry and at a RET. */
			cur.stack = 1;
			cur.off0 = 8 + (int)ops[i].number;
			have = 1;
		} else if (op == DW_OP_call_frame_cfa) {
			cur.stack = 1;
			cur.off0 = 8;
			have = 1;
		} else if (op == DW_OP_plus_uconst && cur.stack) {
			cur.off0 += (int)ops[i].number;
		} else if (op == DW_OP_piece) {
			if (have && w->npieces < MAX_PIECES) {
				cur.off = off;
				cur.size = (int)ops[i].number;
				w->piece[w->npieces++] = cur;
			}
			off += (int)ops[i].number;
			have = 0;
			cur = (struct piece){ 0 };
		} else {
			return why(w, "argument %s has a location the probe cannot read",
				   name);
		}
	}
	if (have && w->npieces < MAX_PIECES) {
		cur.off = off;
		cur.size = 1 << 20;
		w->piece[w->npieces++] = cur;
	}
	w->is_arg_reg = 1;
	return NULL;
}

/* Integer registers a value of type @t takes in Go's register ABI, or -1. */
static int abi_words(Dwarf_Die t)
{
	Dwarf_Die m;
	Dwarf_Attribute a;
	Dwarf_Word enc, size;
	int n = 0;

	peel(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		return 1;
	case DW_TAG_base_type:
		if (dwarf_formudata(dwarf_attr(&t, DW_AT_encoding, &a), &enc) ||
		    enc == DW_ATE_float || enc == DW_ATE_complex_float ||
		    dwarf_aggregate_size(&t, &size) || size > 8)
			return -1;
		return 1;
	case DW_TAG_structure_type:
		if (dwarf_child(&t, &m))
			return 0;
		do {
			Dwarf_Die mt;
			int k;

			if (dwarf_tag(&m) != DW_TAG_member || sub_type(&m, &mt))
				continue;
			k = abi_words(mt);
			if (k < 0)
				return -1;
			n += k;
		} while (dwarf_siblingof(&m, &m) == 0);
		return n;
	}
	return -1;
}

/*
 * Result @name: Go's DWARF gives results no location, so take the
 * register ABI's: results fill RAX, RBX, RCX, ... in order, one word per
 * integer, pointer or struct member (what this cannot count, floats,
 * arrays, a result spilled to the stack, is refused).
 */
static char *result_pieces(struct walk *w, Dwarf_Die *fn, const char *name)
{
	Dwarf_Die p;
	int reg = 0;

	if (dwarf_child(fn, &p))
		return why(w, "no result %s", name);
	do {
		Dwarf_Attribute a;
		bool is_result;
		Dwarf_Die t;
		const char *n;
		int k;

		if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
		    dwarf_formflag(dwarf_attr(&p, DW_AT_variable_parameter, &a),
				   &is_result) || !is_result || sub_type(&p, &t))
			continue;
		n = dwarf_diename(&p);
		k = abi_words(t);
		if (k < 0 || reg + k > GP_R11 + 1)
			return why(w, "result %s is not in integer registers (%s)",
				   n ? n : "?", type_name(&t));
		if (n && !strcmp(n, name)) {
			for (int i = 0; i < k && i < MAX_PIECES; i++)
				w->piece[w->npieces++] = (struct piece){
					.off = 8 * i, .size = 8, .reg = reg + i };
			w->type = t;
			return NULL;
		}
		reg += k;
	} while (dwarf_siblingof(&p, &p) == 0);
	return why(w, "no result %s", name);
}

/*
 * The System V result, named ~r0 as Go's first unnamed one: in RAX (and
 * RDX), or in the memory RAX points to (sysv-resolve.h).
 */
static char *sysv_result_pieces(struct walk *w, Dwarf_Die *fn)
{
	int nregs, indirect;
	char *e = sysv_result(fn, &w->type, &nregs, &indirect);

	if (e) {
		char *r = why(w, "result of %s: %s", w->func, e);

		free(e);
		return r;
	}
	w->piece[0] = (struct piece){ .size = 8, .reg = GP_RAX, .mem = indirect };
	if (indirect)
		w->piece[0].size = 1 << 20;
	w->npieces = 1;
	if (nregs == 2)
		w->piece[w->npieces++] = (struct piece){ .off = 8, .size = 8,
							 .reg = GP_RDX };
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
		       why(w, "result %s is only known at a return", name);
	if (probe_abi(w->b) == PROBE_ABI_SYSV) {
		struct cap_err err;

		if (sysv_probe_pc(w->b, fn, &pc, &err))
			return xstrdup(err.msg);
	} else if (dwarf_lowpc(fn, &pc)) {
		return why(w, "the function has no code address or arguments");
	}
	if (dwarf_child(fn, &p))
		return why(w, "the function has no code address or arguments");
	do {
		Dwarf_Attribute a;
		bool is_result = false;
		const char *n = dwarf_diename(&p);

		if (dwarf_tag(&p) != DW_TAG_formal_parameter || !n || strcmp(n, name))
			continue;
		dwarf_formflag(dwarf_attr(&p, DW_AT_variable_parameter, &a), &is_result);
		if (is_result && !at_exit)
			return why(w, "result %s is only known at a return", name);
		if (is_result)
			return result_pieces(w, fn, name);
		if (sub_type(&p, &w->type))
			return why(w, "argument %s has no type", name);
		return arg_pieces(w, &p, pc, name);
	} while (dwarf_siblingof(&p, &p) == 0);
	return why(w, "the function has no argument or result %s%s", name,
		   go_nearest_child(fn, DW_TAG_formal_parameter, name));
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
		char *r = why(w, "%s", e);

		free(e);
		return r;
	}
	if (sub_type(var, &w->type))
		return why(w, "variable %s has no type", name);
	if (probe_func_die(w->b, w->fn, w->func, &gf, &err)) {
		e = why(w, "%s", cap_err_text(&err));
		cap_err_release(&err);
		return e;
	}
	for (int i = 0; i < n; i++) {
		long long off = (long long)p[i].addr - (long long)gf.entry_pc;

		if (off < INT_MIN || off > INT_MAX)
			return why(w, "variable %s is further than a read's offset reaches "
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
			char *r = why(w, "%s", e);

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
	near = go_nearest_variable(w->b, head);
	if (*near) {
		free(e);
		e = why(w, "%s has no argument or result %s, and the binary no variable %s%s",
			w->func, name, head, near);
	}
	free(head);
	return e;
}

/*
 * Piece @p's pointers as hops of the read, which starts at @p's address
 * (in off[0] if @first, else in stack_off); the walk's byte of the value
 * is then an offset into the last of them.
 */
static void through(struct walk *w, const struct piece *p, int first)
{
	int *at = first ? &w->rd.off[0] : &w->rd.stack_off;

	for (int k = 0; k < p->nderef; k++) {
		w->rd.off[w->rd.nhops] = p->doff[k];
		at = &w->rd.off[w->rd.nhops++];
	}
	*at += w->voff - p->off;
}

/* The value, not yet through a pointer, as the start of a read. */
static char *place(struct walk *w)
{
	for (int i = 0; i < w->npieces; i++) {
		struct piece *p = &w->piece[i];

		if (p->stack && w->voff >= p->off && w->voff < p->off + p->size) {
			w->rd.src = GP_SRC_STACK;
			w->rd.stack_off = p->off0;
			w->is_arg_reg = 0;
			through(w, p, 0);
			return NULL;
		}
		if (p->mem && w->voff >= p->off && w->voff < p->off + p->size) {
			w->rd.src = GP_SRC_REG;
			w->rd.reg = (unsigned char)p->reg;
			w->rd.nhops = 1;
			w->rd.off[0] = p->off0;
			through(w, p, 1);
			return NULL;
		}
		if (!p->stack && !p->mem && w->voff == p->off) {
			w->rd.src = GP_SRC_REG;
			w->rd.reg = (unsigned char)p->reg;
			return NULL;
		}
	}
	if (w->is_var)
		return why(w, "byte %d of the variable is in none of the pieces DWARF "
			   "gives it: the optimizer dropped it", w->voff);
	if (probe_abi(w->b) == PROBE_ABI_SYSV)
		return why(w, "byte %d of the value is in no place DWARF gives at the "
			   "probe site (optimized out, or inside a register the probe "
			   "reads whole)", w->voff);
	return why(w, "this part of the argument was optimized away");
}

/* Go through the pointer the value is, to @off bytes past its target. */
static char *deref(struct walk *w, long off)
{
	if (dwarf_tag(&w->type) != DW_TAG_pointer_type)
		return why(w, "%s is not a pointer", type_name(&w->type));
	if (!w->mem) {
		char *e = place(w);

		if (e)
			return e;
		w->mem = 1;
	}
	if (w->rd.nhops == GP_MAX_HOPS)
		return why(w, "more than %d pointers to follow", GP_MAX_HOPS);
	w->rd.off[w->rd.nhops++] = (int)off;  /* a frame slot's is the 2nd */
	if (sub_type(&w->type, &w->type))
		return why(w, "an untyped pointer (unsafe.Pointer) cannot be followed");
	peel(&w->type);
	return NULL;
}

static void advance(struct walk *w, long off)
{
	if (w->mem)
		w->rd.off[w->rd.nhops - 1] += (int)off;
	else
		w->voff += (int)off;
}

#define DW_AT_GO_EMBEDDED_FIELD 0x2903
#define MAX_EMBED 6     /* depth of embedding searched for a promoted field */

/* Member @name of struct @t: 0 and *@m, or -1. */
static int find_member(Dwarf_Die *t, const char *name, Dwarf_Die *m)
{
	if (dwarf_child(t, m))
		return -1;
	do {
		const char *n = dwarf_diename(m);

		if (dwarf_tag(m) == DW_TAG_member && n && !strcmp(n, name))
			return 0;
	} while (dwarf_siblingof(m, m) == 0);
	return -1;
}

/* @t (a struct, a pointer to one, named or not) as its struct, or -1. */
static int struct_of(Dwarf_Die *t)
{
	peel(t);
	if (dwarf_tag(t) == DW_TAG_pointer_type && (sub_type(t, t) || peel(t)))
		return -1;
	return dwarf_tag(t) == DW_TAG_structure_type ? 0 : -1;
}

/*
 * How many embedded fields of @t have a field @name @depth levels down
 * (1: a field of an embedded field); the names of the first's embedded
 * fields on the way into @path.
 */
static int embedded(Dwarf_Die *t, const char *name, int depth,
		    char path[][MAX_NAME])
{
	Dwarf_Die m, sub;
	int n = 0;

	if (dwarf_child(t, &m))
		return 0;
	do {
		Dwarf_Attribute a;
		bool emb = false;
		const char *mn = dwarf_diename(&m);
		int k;

		if (dwarf_tag(&m) != DW_TAG_member || !mn ||
		    dwarf_formflag(dwarf_attr(&m, DW_AT_GO_EMBEDDED_FIELD, &a), &emb) ||
		    !emb || sub_type(&m, &sub) || struct_of(&sub))
			continue;
		if (depth == 1) {
			Dwarf_Die f;

			k = find_member(&sub, name, &f) == 0;
		} else {
			k = embedded(&sub, name, depth - 1, path + 1);
		}
		if (k && !n)
			snprintf(path[0], MAX_NAME, "%s", mn);
		n += k;
	} while (dwarf_siblingof(&m, &m) == 0);
	return n;
}

static char *promoted(struct walk *w, const char *name);
static char *assertion(struct walk *w, const char *type);
static char *add_guard(struct walk *w, struct walk *at, enum probe_guard_op op,
		       unsigned long long k, int size);
static void take_value(struct walk *w, enum probe_kind kind, int size,
		       struct probe_value *out);

/* A struct (C's unions and C++'s classes too: no Go type is either). */
static int is_aggregate(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/*
 * A bit-field's first bit from its struct's start: DW_AT_data_bit_offset
 * (gcc's), or DWARF 2's DW_AT_bit_offset, counted from the most
 * significant bit of a DW_AT_byte_size unit at DW_AT_data_member_location
 * (clang 14's), on a little-endian machine.
 */
static int bit_offset(Dwarf_Die *m, Dwarf_Word bits, Dwarf_Word *at)
{
	Dwarf_Attribute a;
	Dwarf_Word from_msb, unit, loc;

	if (!dwarf_formudata(dwarf_attr(m, DW_AT_data_bit_offset, &a), at))
		return 0;
	if (dwarf_formudata(dwarf_attr(m, DW_AT_bit_offset, &a), &from_msb) ||
	    dwarf_formudata(dwarf_attr(m, DW_AT_byte_size, &a), &unit) ||
	    dwarf_formudata(dwarf_attr(m, DW_AT_data_member_location, &a), &loc) ||
	    from_msb + bits > 8 * unit)
		return -1;
	*at = 8 * loc + 8 * unit - from_msb - bits;
	return 0;
}

/*
 * Bit-field @m: the unit of its type's size (and alignment) that holds it,
 * and its bits there.
 */
static char *bit_field(struct walk *w, Dwarf_Die *m, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Word bits, at, size, unit;

	if (dwarf_formudata(dwarf_attr(m, DW_AT_bit_size, &a), &bits) ||
	    bit_offset(m, bits, &at) || sub_type(m, &w->type))
		return why(w, "bit-field %s has no bit offset DWARF gives", name);
	peel(&w->type);
	if (dwarf_aggregate_size(&w->type, &size) || !size || size > 8)
		return why(w, "bit-field %s has no integer type", name);
	unit = at / (8 * size) * size;
	if (at - 8 * unit + bits > 8 * size)
		return why(w, "bit-field %s straddles two %d-byte units (a packed "
			   "struct): the probe reads one", name, (int)size);
	w->bit_off = (int)(at - 8 * unit);
	w->bit_size = (int)bits;
	advance(w, (long)unit);
	return NULL;
}

/*
 * A Rust enum with data: a struct whose DW_TAG_variant_part (into @vp)
 * holds a DW_TAG_variant per variant, each with one member named after
 * the variant (its fields' struct), and names the discriminant's member
 * (DW_AT_discr): a tag, or a niche in another variant's field
 * (Option<Box<T>>'s pointer, 0 for None).  0, or -1 if @t is none.
 */
static int variant_part(Dwarf_Die *t, Dwarf_Die *vp)
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
		return why(w, "enum %s: DWARF gives its discriminant no place or size",
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
	return *n < 0 ? why(w, "enum %s: variants the probe cannot tell apart "
			    "(discriminant ranges, or more than %d)", type_name(&w->type),
			    RUST_MAX_VARIANTS) : NULL;
}

/*
 * Variant @name of the enum @vp is the variant part of: its fields'
 * struct, read only when the discriminant selects it (equal to its value;
 * a variant without one: unequal to every other's).
 */
static char *variant(struct walk *w, Dwarf_Die *vp, const char *name)
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
		e = why(w, "enum %s has no variant %s (its variants: %s)",
			type_name(&w->type), name, names.buf ? names.buf : "none");
		strbuf_release(&names);
	}
	if (e)
		return e;
	at = *w;
	advance(&at, off);
	for (int i = 0; i < n && !e; i++)
		if (v[k].has_value ? i == k : i != k && v[i].has_value)
			e = add_guard(w, &at, v[k].has_value ? PROBE_GUARD_EQUAL :
				      PROBE_GUARD_UNEQUAL, v[i].value, size);
	if (e)
		return e;
	if (dwarf_formudata(dwarf_attr(&m[k], DW_AT_data_member_location, &a), &loc) ||
	    sub_type(&m[k], &w->type))
		return why(w, "variant %s has no offset or type", name);
	peel(&w->type);
	advance(w, (long)loc);
	return NULL;
}

/* An enum read whole: its discriminant, and the variants it selects. */
static char *enum_value(struct walk *w, Dwarf_Die *vp, struct probe_value *out)
{
	Dwarf_Die m[RUST_MAX_VARIANTS];
	long off;
	int size;
	char *e = enum_parts(w, vp, &off, &size, out->variant, m, &out->nvariants);

	if (e)
		return e;
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w->type));
	advance(w, off);
	if (!w->mem && (e = place(w)))
		return e;
	take_value(w, PROBE_KIND_UNSIGNED, size, out);
	return NULL;
}

static int is_pointer(const char *name, Dwarf_Die *t);
static char *along(struct walk *w, int (*end)(const char *, Dwarf_Die *),
		   const char *what);

/* A Rust AtomicPtr<T>: its fields are T's, through the pointer in its cell. */
static int is_atomic_ptr(struct walk *w)
{
	return probe_is_rust(w->b) && dwarf_tag(&w->type) == DW_TAG_structure_type &&
	       !strncmp(type_name(&w->type), "AtomicPtr<", 10);
}

/* Member @name of the struct the value is (or points to). */
static char *member(struct walk *w, const char *name)
{
	char tuple[MAX_NAME];
	Dwarf_Die m;
	char *e;

	if (is_atomic_ptr(w) && find_member(&w->type, name, &m) &&
	    (e = along(w, is_pointer, "pointer in its cell")))
		return e;
	if (dwarf_tag(&w->type) == DW_TAG_pointer_type && (e = deref(w, 0)))
		return e;
	if (probe_is_rust(w->b) && !variant_part(&w->type, &m))
		return variant(w, &m, name);
	if (probe_is_rust(w->b) && isdigit((unsigned char)*name)) {
		snprintf(tuple, sizeof(tuple), "__%s", name);   /* a tuple's field */
		name = tuple;
	}
	if (!is_aggregate(&w->type))
		return why(w, "%s has no fields (looking for %s)", type_name(&w->type), name);
	if (find_member(&w->type, name, &m) == 0) {
		Dwarf_Attribute a;
		Dwarf_Word loc;

		if (dwarf_hasattr(&m, DW_AT_bit_size))
			return bit_field(w, &m, name);
		if (dwarf_tag(&w->type) == DW_TAG_union_type &&
		    !dwarf_hasattr(&m, DW_AT_data_member_location))
			loc = 0;    /* a union's members all start at 0 */
		else if (dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &loc))
			return why(w, "field %s has no offset", name);
		if (sub_type(&m, &w->type))
			return why(w, "field %s has no type", name);
		peel(&w->type);
		advance(w, (long)loc);
		return NULL;
	}
	return promoted(w, name);
}

/*
 * A field promoted from an embedded struct (x.Term for x.State.Term), as
 * Go finds it: at the shallowest depth of embedding, one field there.
 */
static char *promoted(struct walk *w, const char *name)
{
	char path[MAX_EMBED][MAX_NAME];

	for (int depth = 1; depth < MAX_EMBED; depth++) {
		int n = embedded(&w->type, name, depth, path);

		if (n > 1)
			return why(w, "%s: field %s is ambiguous (%d embedded fields have it at depth %d)",
				   type_name(&w->type), name, n, depth);
		if (n == 1) {
			char *e = NULL;

			for (int i = 0; i < depth && !e; i++)
				e = member(w, path[i]);
			return e ? e : member(w, name);
		}
	}
	return why(w, "%s has no field %s%s", type_name(&w->type), name,
		   go_nearest_child(&w->type, DW_TAG_member, name));
}

/* DW_AT_go_kind: the reflect.Kind Go's linker gives its types. */
#define DW_AT_GO_KIND 0x2900
enum { GO_REFLECT_INTERFACE = 20, GO_REFLECT_MAP = 21, GO_REFLECT_SLICE = 23,
       GO_REFLECT_STRING = 24 };

/* @t's reflect.Kind, or -1 (a type Go's DWARF gives none). */
static int reflect_kind(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word k;

	return dwarf_formudata(dwarf_attr(t, DW_AT_GO_KIND, &a), &k) ? -1 : (int)k;
}

/*
 * Is the value a Go slice (a struct of array, len, cap) or a string (str,
 * len)?  By kind, not by name: a named one (type IDs []uint64, type
 * ServerID string) is a struct named after its type.  Rust's are by their
 * DWARF (rust-types below).
 */
static int is_go_slice(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_structure_type &&
	       (reflect_kind(t) == GO_REFLECT_SLICE || !strncmp(type_name(t), "[]", 2));
}

static int is_go_string(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_structure_type &&
	       (reflect_kind(t) == GO_REFLECT_STRING || !strcmp(type_name(t), "string"));
}

/* Rust's sequences and collections, as rustc's DWARF describes them. */
enum rust_seq { RUST_NONE, RUST_SLICE, RUST_STR, RUST_VEC, RUST_STRING, RUST_DEQUE,
		RUST_HASHED };

static enum rust_seq rust_seq(Dwarf_Die *t)
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

static int is_slice(struct walk *w)
{
	enum rust_seq k = probe_is_rust(w->b) ? rust_seq(&w->type) : RUST_NONE;

	return k == RUST_SLICE || k == RUST_VEC || is_go_slice(&w->type);
}

static int is_string(struct walk *w)
{
	enum rust_seq k = probe_is_rust(w->b) ? rust_seq(&w->type) : RUST_NONE;

	return k == RUST_STR || k == RUST_STRING || is_go_string(&w->type);
}

/* A Rust collection with a length but no elements the probe reads. */
static int is_collection(struct walk *w)
{
	enum rust_seq k = probe_is_rust(w->b) ? rust_seq(&w->type) : RUST_NONE;

	return k == RUST_DEQUE || k == RUST_HASHED;
}

/*
 * A Rust value through its references and Boxes (pointers in DWARF), as
 * Rust's auto-deref reads v[0] and v.len() of a &Vec<T>.
 */
static char *rust_autoderef(struct walk *w)
{
	char *e = NULL;

	while (!e && probe_is_rust(w->b) && dwarf_tag(&w->type) == DW_TAG_pointer_type)
		e = deref(w, 0);
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
	char *e = n ? NULL : why(w, "%s: DWARF gives it no %s", type_name(&w->type), what);

	for (int i = 0; !e && i < n; i++)
		e = member(w, path[i]);
	return e;
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

/*
 * To a sequence's length: Go's len, Rust's length (a slice), len (a Vec,
 * a VecDeque) or the items of a HashMap's or HashSet's table.
 */
static char *seq_len(struct walk *w)
{
	enum rust_seq k = probe_is_rust(w->b) ? rust_seq(&w->type) : RUST_NONE;
	char *e = k == RUST_STRING ? member(w, "vec") : NULL;

	if (e)
		return e;
	w->is_int |= k != RUST_NONE;   /* usize, an int as Go's len is */
	if (k == RUST_HASHED)
		return along(w, is_items, "count of its items (hashbrown's RawTable items)");
	return member(w, k == RUST_SLICE || k == RUST_STR ? "length" : "len");
}

/*
 * To a sequence's data pointer, its element type into @elem: Go's array
 * (a string's str), Rust's data_ptr or a Vec's first pointer (of u8: the
 * element type is the Vec's T).
 */
static char *seq_data(struct walk *w, Dwarf_Die *elem)
{
	enum rust_seq k = probe_is_rust(w->b) ? rust_seq(&w->type) : RUST_NONE;
	Dwarf_Die vec;
	char *e;

	if (k == RUST_STRING && (e = member(w, "vec")))
		return e;
	if (k == RUST_VEC || k == RUST_STRING) {
		vec = w->type;
		if (vec_element(&vec, elem))
			return why(w, "%s: DWARF gives no element type", type_name(&vec));
		return along(w, is_pointer, "data pointer");
	}
	e = member(w, k != RUST_NONE ? "data_ptr" : is_go_string(&w->type) ? "str" : "array");
	if (!e && sub_type(&w->type, elem))
		e = why(w, "%s: no element type", type_name(&w->type));
	return e;
}

/* @elem, a sequence's element type, is a byte: a []byte's bytes read as a string's. */
static int is_byte(Dwarf_Die *elem)
{
	Dwarf_Word size;

	return !peel(elem) && dwarf_tag(elem) == DW_TAG_base_type &&
	       !dwarf_aggregate_size(elem, &size) && size == 1;
}

/* Element @i of a slice or array. */
/*
 * Element @i of @esize bytes within what a read's offset (an int) reaches:
 * NULL, else why not (a wrapped offset would read another element).
 */
static char *reachable(struct walk *w, long i, Dwarf_Word esize)
{
	if (esize && (Dwarf_Word)i > (Dwarf_Word)INT_MAX / esize)
		return why(w, "index %ld: further than a read's offset reaches (%d bytes)",
			   i, INT_MAX);
	return NULL;
}

/* A guard of @w's value: @at's value (@size bytes) is above (equal, unequal to) @k. */
static char *add_guard(struct walk *w, struct walk *at, enum probe_guard_op op,
		       unsigned long long k, int size)
{
	struct probe_guard *g = &w->guard[w->nguards];
	char *e;

	if (w->nguards == PROBE_MAX_GUARDS)
		return why(w, "more than %d slice indexes and assertions", PROBE_MAX_GUARDS);
	if (!at->mem && (e = place(at)))
		return e;
	g->rd = at->rd;
	g->rd.size = (unsigned char)size;
	g->is_arg_reg = at->rd.src == GP_SRC_REG && at->is_arg_reg;
	g->op = op;
	g->k = k;
	w->nguards++;
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
			return why(w, "array %s has no element size or length",
				   type_name(&w->type));
		if ((Dwarf_Word)i >= count)
			return why(w, "index out of the bounds of %s", type_name(&w->type));
		if ((e = reachable(w, i, esize)))
			return e;
		sub_type(&w->type, &w->type);
		peel(&w->type);
		advance(w, i * (long)esize);
		return NULL;
	}
	if (is_collection(w))
		return why(w, "%s: its elements are not read (a VecDeque's [N] is at its "
			   "head plus N, modulo its capacity), only its len()", type_name(&w->type));
	if (!is_slice(w))
		return why(w, "%s is neither a slice nor an array", type_name(&w->type));
	at = *w;
	if ((e = seq_len(&at)) ||
	    (e = add_guard(w, &at, PROBE_GUARD_ABOVE, (unsigned long)i, 8)))
		return e;
	if ((e = seq_data(w, &sub)))
		return e;
	if (dwarf_aggregate_size(&sub, &esize))
		return why(w, "%s: no element size", type_name(&w->type));
	if ((e = reachable(w, i, esize)) || (e = deref(w, i * (long)esize)))
		return e;
	w->type = sub;
	peel(&w->type);
	return NULL;
}

static void take_guards(const struct walk *w, struct probe_value *out)
{
	memcpy(out->guard, w->guard, sizeof(out->guard));
	out->nguards = w->nguards;
}

/* The walk's read, @size bytes of @kind, as the value (placed already). */
static void take_value(struct walk *w, enum probe_kind kind, int size,
		       struct probe_value *out)
{
	w->rd.size = (unsigned char)size;
	out->kind = kind;
	out->size = size;
	out->rd = w->rd;
	out->is_arg_reg = w->rd.src == GP_SRC_REG && w->is_arg_reg;
	take_guards(w, out);
}

/* Rust's integer atomics (core::sync::atomic), read by their value. */
static int rust_atomic(const char *n)
{
	static const char *const types[] = { "AtomicBool", "AtomicU8", "AtomicU16",
		"AtomicU32", "AtomicU64", "AtomicUsize", "AtomicI8", "AtomicI16",
		"AtomicI32", "AtomicI64", "AtomicIsize" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(n, types[i]))
			return 1;
	return 0;
}

/*
 * sync/atomic's Int32, Int64, Uint32, Uint64, Uintptr and Bool are read
 * by their value, their field v (a Bool's a uint32 that is 0 or 1: its
 * low byte, as a bool); Rust's AtomicU8 ... AtomicIsize by the integer
 * in their cell (v.value today: found, not assumed), an AtomicBool's a
 * u8 that is 0 or 1.  1 if @w was one of them (now at its value), 0 if not.
 */
static int atomic_value(struct walk *w, int *is_bool)
{
	static const char *const types[] = { "Int32", "Int64", "Uint32", "Uint64",
					     "Uintptr", "Bool" };
	const char *n = type_name(&w->type);
	char *e;

	*is_bool = 0;
	if (dwarf_tag(&w->type) != DW_TAG_structure_type)
		return 0;
	if (probe_is_rust(w->b) && rust_atomic(n)) {
		*is_bool = !strcmp(n, "AtomicBool");
		e = along(w, is_base, "integer in its cell");
		free(e);
		return !e;
	}
	if (strncmp(n, "sync/atomic.", 12))
		return 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(n + 12, types[i])) {
			*is_bool = !strcmp(types[i], "Bool");
			return member(w, "v") ? 0 : 1;
		}
	return 0;
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
		if (!w->mem && (e = place(w)))
			return e;
		snprintf(out->type, sizeof(out->type), "%s", atomic);
		take_value(w, PROBE_KIND_BOOL, 1, out);
		return NULL;
	}

	if ((e = rust_autoderef(w)))	/* a &T or Box<T> reads the T */
		return e;
	if (probe_is_rust(w->b) && !variant_part(&w->type, &vp))
		return enum_value(w, &vp, out);
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w->type));
	if (dwarf_tag(&w->type) == DW_TAG_enumeration_type && enum_base(&w->type))
		return why(w, "enum %s: DWARF gives it no underlying type (DWARF 5 "
			   "does: -gdwarf-5)", out->type);
	if (dwarf_tag(&w->type) == DW_TAG_pointer_type || is_atomic_ptr(w))
		return why(w, "%s is an address, which differs from run to run: read a field through it",
			   type_name(&w->type));
	if (dwarf_tag(&w->type) != DW_TAG_base_type ||
	    dwarf_formudata(dwarf_attr(&w->type, DW_AT_encoding, &a), &enc) ||
	    dwarf_aggregate_size(&w->type, &size) ||
	    (enc != DW_ATE_boolean && enc != DW_ATE_signed && enc != DW_ATE_unsigned &&
	     enc != DW_ATE_signed_char && enc != DW_ATE_unsigned_char) ||
	    (size != 1 && size != 2 && size != 4 && size != 8))
		return why(w, "%s is not a boolean or an integer", type_name(&w->type));
	if (!w->mem && (e = place(w)))
		return e;
	if (w->is_int)
		snprintf(out->type, sizeof(out->type), "int");
	kind = enc == DW_ATE_boolean ? PROBE_KIND_BOOL :
	       enc == DW_ATE_signed || enc == DW_ATE_signed_char || w->is_int ?
	       PROBE_KIND_SIGNED : PROBE_KIND_UNSIGNED;
	w->rd.bit_off = (unsigned char)w->bit_off;
	w->rd.bit_size = (unsigned char)w->bit_size;
	w->rd.bit_signed = w->bit_size && kind == PROBE_KIND_SIGNED;
	take_value(w, kind, (int)size, out);
	return NULL;
}

/* Is @t an interface's value (runtime.iface, or runtime.eface for any)? */
static int iface_word(Dwarf_Die *t, const char **type_word)
{
	const char *n = type_name(t);

	*type_word = !strcmp(n, "runtime.iface") ? "tab" :
		     !strcmp(n, "runtime.eface") ? "_type" : NULL;
	return dwarf_tag(t) == DW_TAG_structure_type && *type_word;
}

/*
 * A Rust trait object (&dyn Trait, Box<dyn Trait>: a struct of a pointer
 * to a "dyn Trait" and a vtable): its trait's name into @trait, from
 * "dyn Trait" or "dyn Trait + Send" (the vtable is the first trait's).
 */
static int trait_object(Dwarf_Die *t, char *trait)
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
 * tells a position-independent binary's load bias, expr.h).
 */
static char *dyn_assertion(struct walk *w, const char *trait, const char *type)
{
	Dwarf_Addr addr[PROBE_MAX_ADDRS], pc;
	struct probe_guard *g = &w->guard[w->nguards];
	struct cap_err err;
	struct walk at;
	Dwarf_Die t;
	char *e;
	int n;

	if (*type != '*')
		return why(w, ".(%s): a trait object is asserted to point to a type, .(*T)", type);
	n = rust_vtables(probe_dwarf(w->b), type + 1, trait, addr, PROBE_MAX_ADDRS, &t);
	if (n == 0)
		return why(w, ".(%s): no vtable of <%s as %s> in the binary's DWARF (no %s is "
			   "ever a dyn %s there)", type, type + 1, trait, type + 1, trait);
	if (n < 0)
		return why(w, ".(%s): more than %d vtables of <%s as %s> (one per codegen unit)",
			   type, PROBE_MAX_ADDRS, type + 1, trait);
	if (sysv_probe_pc(w->b, w->fn, &pc, &err))
		return xstrdup(err.msg);
	at = *w;
	if ((e = member(&at, "vtable")) || (e = add_guard(w, &at, PROBE_GUARD_ONE_OF, 0, 8)))
		return e;
	for (int i = 0; i < n; i++)
		g->one_of.a[i] = addr[i];
	g->one_of.n = n;
	g->one_of.pc = pc;
	if ((e = member(w, "pointer")) || (e = deref(w, 0)))
		return e;
	w->type = t;
	peel(&w->type);
	return NULL;
}

/*
 * x.(*T): the interface's data word as a *T, guarded by its dynamic type:
 * the itab's Type (an empty interface's _type) must be T's descriptor.
 */
static char *assertion(struct walk *w, const char *type)
{
	char trait[MAX_NAME];
	const char *word;
	unsigned long desc;
	struct walk at;
	Dwarf_Die t;
	char *e;
	int rc;

	if (probe_is_rust(w->b) && trait_object(&w->type, trait))
		return dyn_assertion(w, trait, type);
	if (!iface_word(&w->type, &word))
		return why(w, "%s is not an interface: .(%s) asserts an interface's type",
			   type_name(&w->type), type);
	if (*type != '*')
		return why(w, ".(%s): only a pointer type is asserted here, .(*T)", type);
	if ((rc = go_pointer_type(w->b, type, &t, &desc)) == -2)
		return why(w, ".(%s): the binary is position-independent: its type descriptors' addresses are known only at run time", type);
	if (rc)
		return why(w, ".(%s): no type %s in the binary (or no descriptor of it)", type, type);
	at = *w;
	if ((e = member(&at, word)) ||
	    (!strcmp(word, "tab") && (e = member(&at, "Type"))) ||
	    (e = add_guard(w, &at, PROBE_GUARD_EQUAL, desc, 8)) || (e = member(w, "data")))
		return e;
	w->type = t;
	return NULL;
}

/* The field of map pointer @t's header that counts it (Go 1.24's maps, or older), or NULL. */
static const char *map_count(Dwarf_Die *t)
{
	Dwarf_Die h = *t, m;
	const char *n;

	if (dwarf_tag(t) != DW_TAG_pointer_type || struct_of(&h))
		return NULL;
	n = type_name(&h);
	if (!strncmp(n, "map<", 4) && !find_member(&h, "used", &m))
		return "used";
	if (!strncmp(n, "hash<", 5) && !find_member(&h, "count", &m))
		return "count";
	return NULL;
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
		return why(w, "expected a name");
	if ((e = first(w, fn, p, name, at_exit, &p)))
		return e;
	peel(&w->type);
	for (;;) {
		if (p[0] == '.' && p[1] == '(') {
			const char *close = strchr(p, ')');

			if (!close || close - p - 2 >= MAX_NAME)
				return why(w, "expected .(*TYPE)");
			snprintf(name, sizeof(name), "%.*s", (int)(close - p - 2), p + 2);
			p = close + 1;
			e = assertion(w, name);
		} else if (*p == '.') {
			p = ident(p + 1, name);
			if (!name[0])
				return why(w, "expected a field name after '.'");
			e = member(w, name);
		} else if (*p == '[') {
			char *q;
			long i;

			errno = 0;
			i = strtol(p + 1, &q, 10);
			if (q == p + 1 || *q != ']' || i < 0 || errno)
				return why(w, "expected [N], N a constant index");
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

static char *goid(struct probe_binary *b, struct probe_value *out)
{
	struct cap_err err;
	long off = probe_member(b, "runtime.g", "goid", &err);

	if (off < 0)
		return xstrdup(err.msg);
	memset(out, 0, sizeof(*out));
	out->rd = (struct gp_read){ .src = GP_SRC_REG, .reg = GP_R14, .nhops = 1,
				    .size = 8, .off = { (int)off } };
	out->kind = PROBE_KIND_UNSIGNED;
	out->size = 8;
	snprintf(out->type, sizeof(out->type), "int64");
	return NULL;
}

/* The thread's id where there are no goroutines (GP_TID, goprobe.h). */
static char *thread_id(struct probe_value *out)
{
	memset(out, 0, sizeof(*out));
	out->rd = (struct gp_read){ .src = GP_SRC_REG, .reg = GP_TID, .size = 8 };
	out->kind = PROBE_KIND_UNSIGNED;
	out->size = 8;
	snprintf(out->type, sizeof(out->type), "thread id");
	return NULL;
}

char *probe_expr(struct probe_binary *b, Dwarf_Die *fn, const char *expr,
		 int at_exit, struct probe_value *out)
{
	struct walk w = { .b = b, .fn = fn, .expr = expr, .func = func_name(fn) };
	const char *p = expr, *end = NULL;
	int is_len = !strncmp(expr, "len(", 4), star = *expr == '*';
	char *e;

	if (!strcmp(expr, "goid"))
		return probe_abi(b) == PROBE_ABI_SYSV ? thread_id(out) : goid(b, out);
	memset(out, 0, sizeof(*out));
	if (is_len || star)
		p += is_len ? 4 : 1;
	if ((e = path(&w, fn, p, at_exit, &end)))
		return e;
	if (star && (e = deref(&w, 0)))
		return e;
	if (is_len) {
		if (*end != ')')
			return why(&w, "expected ')' after len(...");
		end++;
		const char *count = map_count(&w.type);

		if ((e = rust_autoderef(&w)))
			return e;
		if (count) {
			if ((e = member(&w, count)))
				return e;
			w.is_int = 1;
		} else if (!is_slice(&w) && !is_string(&w) && !is_collection(&w)) {
			return why(&w, "len of %s: only %s have one here", type_name(&w.type),
				   probe_is_rust(b) ? "slices, strings, Vecs, VecDeques, HashMaps and "
				   "HashSets" : "slices, strings and maps");
		} else if ((e = seq_len(&w))) {
			return e;
		}
	}
	if (*end)
		return why(&w, "unexpected '%s'", end);
	return finish(&w, out);
}

/* @expr, a path with nothing after it. */
static char *whole_path(struct walk *w, Dwarf_Die *fn, const char *expr, int at_exit)
{
	const char *end = NULL;
	char *e = path(w, fn, expr, at_exit, &end);

	if (!e && *end)
		e = why(w, "unexpected '%s'", end);
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
		return why(&w, "%s is neither a string nor a []byte", type_name(&w.type));
	snprintf(out->type, sizeof(out->type), "%s", type_name(&w.type));
	if ((e = seq_data(&w, &elem)))
		return e;
	if (bytes && !is_byte(&elem))
		return why(&w, "%s is neither a string nor a []byte", out->type);
	if ((e = deref(&w, 8L * word)))
		return e;
	take_value(&w, PROBE_KIND_UNSIGNED, 8, out);
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
		return why(&w, "%s is no pointer: an addr field reads one", type_name(&w.type));
	if (!w.mem && (e = place(&w)))
		return e;
	take_value(&w, PROBE_KIND_UNSIGNED, 8, out);
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
	if (iface_word(&w.type, &word))
		e = member(&w, word);
	else if (is_go_slice(&w.type))
		e = member(&w, "array");
	else if (dwarf_tag(&w.type) != DW_TAG_pointer_type)
		return why(&w, "%s is never nil: a nil test takes a pointer, an interface, a map or a slice",
			   type_name(&w.type));
	if (e || (!w.mem && (e = place(&w))))
		return e;
	take_value(&w, PROBE_KIND_BOOL, 8, out);
	out->size = 1;          /* a bool, from the 8-byte word */
	return NULL;
}
