// SPDX-License-Identifier: MIT
/* System V's part of an expression's walk: see expr-sysv.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr-sysv.h"
#include "sysv-resolve.h"

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
		*e = walk_why(w, "argument %s of %s: a location through more than %d "
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
	return walk_why(w, "argument %s of %s is in a slot of its frame, which is gone "
			"where the kernel's uretprobe sees the return (a jump may leave "
			"%s: a tail call): read it at the entry", name, w->func, w->func);
}

/*
 * One operation of a System V location at @pc into @cur: a register, a
 * register plus an offset (DW_OP_breg*) or the frame base plus one
 * (DW_OP_fbreg), as a stack slot when the register is SP.
 */
char *sysv_arg_op(struct walk *w, const Dwarf_Op *op, Dwarf_Addr pc,
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
		return cur->reg < 0 ? walk_why(w, "argument %s is in a register the probe "
					       "cannot read", name) : NULL;
	}
	if (a == DW_OP_fbreg) {
		if ((e = sysv_frame_base(probe_elf(w->b), w->fn, pc, &reg, &off))) {
			char *r = walk_why(w, "argument %s of %s: %s", name, w->func, e);

			free(e);
			return r;
		}
		off += (long)(Dwarf_Sword)op->number;
	} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		reg = sysv_reg(a - DW_OP_breg0);
		off = (long)(Dwarf_Sword)op->number;
	} else {
		return walk_why(w, "argument %s of %s is computed at the probe site "
				"(DW_OP %#x), not stored: the probe cannot read it", name,
				w->func, a);
	}
	if (reg == -1)
		return walk_why(w, "argument %s is based on a register the probe cannot read",
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

		if ((e = sysv_cfa_above_sp(probe_elf(w->b), pc, &k))) {
			char *r = walk_why(w, "argument %s of %s, in a stack slot, at a return: %s",
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

/*
 * The System V result, named ~r0 as Go's first unnamed one: in RAX (and
 * RDX), or in the memory RAX points to (sysv-resolve.h).
 */
char *sysv_result_pieces(struct walk *w, Dwarf_Die *fn)
{
	int nregs, indirect;
	char *e = sysv_result(fn, &w->type, &nregs, &indirect);

	if (e) {
		char *r = walk_why(w, "result of %s: %s", w->func, e);

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

/* The thread's id where there are no goroutines (GP_TID, goprobe.h). */
char *sysv_thread_id(struct probe_value *out)
{
	memset(out, 0, sizeof(*out));
	out->rd = (struct gp_read){ .src = GP_SRC_REG, .reg = GP_TID, .size = 8 };
	out->kind = PROBE_KIND_UNSIGNED;
	out->size = 8;
	snprintf(out->type, sizeof(out->type), "thread id");
	return NULL;
}
