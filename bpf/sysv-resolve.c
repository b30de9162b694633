// SPDX-License-Identifier: MIT
/* The System V ABI's probe sites, frame bases and results: see sysv-resolve.h. */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "goprobe.h"
#include "sysv-resolve.h"

int sysv_reg(unsigned dw)
{
	static const int map[17] = { GP_RAX, GP_RDX, GP_RCX, GP_RBX, GP_RSI, GP_RDI,
		GP_RBP, SYSV_SP, GP_R8, GP_R9, GP_R10, GP_R11, GP_R12, GP_R13,
		GP_R14, GP_R15, -1 };

	return dw < 16 ? map[dw] : -1;
}

/* Is @fn's frame base the CFA (gcc's DW_OP_call_frame_cfa)? */
static int cfa_based(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	return dwarf_attr(fn, DW_AT_frame_base, &a) && !dwarf_getlocation(&a, &ops, &nops) &&
	       nops == 1 && ops[0].atom == DW_OP_call_frame_cfa;
}

/*
 * Has any parameter of @fn a single location expression in its frame
 * (DW_OP_fbreg, DW_OP_breg*: -O0's slots, which the prologue writes)?  A
 * single register holds from the first instruction; a list says where;
 * a slot at or above the CFA (a struct passed in memory, -O2's
 * DW_OP_fbreg 0) is the caller's, there from the first instruction.
 */
static int has_frame_slot(Dwarf_Die *fn)
{
	int cfa = cfa_based(fn);
	Dwarf_Die p;

	if (dwarf_child(fn, &p))
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;

		if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
		    !dwarf_attr(&p, DW_AT_location, &a) ||
		    dwarf_whatform(&a) != DW_FORM_exprloc ||
		    dwarf_getlocation(&a, &ops, &nops))
			continue;
		for (size_t i = 0; i < nops; i++)
			if ((ops[i].atom == DW_OP_fbreg &&
			     !(cfa && (Dwarf_Sword)ops[i].number >= 0)) ||
			    (ops[i].atom >= DW_OP_breg0 && ops[i].atom <= DW_OP_breg31))
				return 1;
	} while (dwarf_siblingof(&p, &p) == 0);
	return 0;
}

/* The first line-table row of @fn's code past its first instruction. */
static int prologue_end(Dwarf_Die *fn, Dwarf_Addr lo, Dwarf_Addr hi,
			Dwarf_Addr *pc)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;

	if (!dwarf_diecu(fn, &cu, NULL, NULL) || dwarf_getsrclines(&cu, &lines, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;

		if (l && !dwarf_lineaddr(l, &a) && a > lo && a < hi) {
			*pc = a;
			return 0;
		}
	}
	return -1;
}

int sysv_probe_pc(const char *path, Dwarf_Die *fn, Dwarf_Addr *pc,
		  struct cap_err *err)
{
	const char *name = dwarf_diename(fn);
	Dwarf_Addr lo, hi;

	if (dwarf_lowpc(fn, &lo) || dwarf_highpc(fn, &hi))
		return cap_fail(err, EXIT_BAD_INPUT, "%s: %s has no code range",
				path, name ? name : "?");
	*pc = lo;
	if (has_frame_slot(fn) && prologue_end(fn, lo, hi, pc))
		return cap_fail(err, EXIT_BAD_INPUT, "%s: %s: no line-table row past its "
				"first instruction, where its arguments' stack slots are written",
				path, name ? name : "?");
	return 0;
}

/* A DW_OP_breg*, DW_OP_bregx or DW_OP_reg* as a register and offset. */
static char *reg_op(const Dwarf_Op *op, int *reg, long *off)
{
	unsigned a = op->atom;

	if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		*reg = sysv_reg(a - DW_OP_breg0);
		*off = (long)(Dwarf_Sword)op->number;
	} else if (a == DW_OP_bregx) {
		*reg = sysv_reg((unsigned)op->number);
		*off = (long)(Dwarf_Sword)op->number2;
	} else if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		*reg = sysv_reg(a - DW_OP_reg0);
		*off = 0;
	} else {
		return xasprintf("a frame base the probe cannot read (DW_OP %#x)", a);
	}
	return *reg == -1 ? xstrdup("a frame base in a register the probe cannot read") :
	       NULL;
}

/* The CFA at @pc, from .eh_frame (the one a gcc or clang binary has). */
static char *cfa_at(Elf *elf, Dwarf_Addr pc, int *reg, long *off)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	char *why;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame) ||
	    dwarf_frame_cfa(frame, &ops, &nops) || nops != 1)
		why = xasprintf("no call-frame information at %#lx", (unsigned long)pc);
	else
		why = reg_op(&ops[0], reg, off);
	free(frame);
	if (cfi)
		dwarf_cfi_end(cfi);
	return why;
}

/*
 * A frame base of the CFA, alone (gcc's) or plus a constant: rustc's of a
 * large frame, DW_OP_call_frame_cfa, DW_OP_consts -N, DW_OP_plus (or
 * DW_OP_plus_uconst N).
 */
static char *cfa_plus(Elf *elf, Dwarf_Addr pc, const Dwarf_Op *ops,
		      size_t nops, int *reg, long *off)
{
	char *e = cfa_at(elf, pc, reg, off);

	if (e || nops == 1)
		return e;
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
		*off += (long)ops[1].number;
	else if (nops == 3 && (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu) &&
		 ops[2].atom == DW_OP_plus)
		*off += (long)(Dwarf_Sword)ops[1].number;
	else
		return xstrdup("a frame base of the CFA the probe cannot read (an expression "
			       "other than CFA + a constant)");
	return NULL;
}

char *sysv_cfa_above_sp(Elf *elf, Dwarf_Addr pc, long *k)
{
	int reg;
	char *e = cfa_at(elf, pc, &reg, k);

	if (!e && reg != SYSV_SP)
		e = xasprintf("the frame at %#lx is addressed by a frame pointer, not the "
			      "stack pointer", (unsigned long)pc);
	return e;
}

char *sysv_frame_base(Elf *elf, Dwarf_Die *fn, Dwarf_Addr pc,
		      int *reg, long *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(fn, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) < 1)
		return xstrdup("the function has no frame base at the probe site");
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return cfa_plus(elf, pc, ops, nops, reg, off);
	if (nops != 1)
		return xasprintf("a frame base the probe cannot read (an expression of %zu "
				 "operations, not a register or the CFA)", nops);
	return reg_op(&ops[0], reg, off);
}

/* Does @t (a struct, union or array) hold a float anywhere? */
static int has_float(Dwarf_Die t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;
	Dwarf_Die m, sub;

	dwarf_peel_type(&t, &t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		return !dwarf_formudata(dwarf_attr(&t, DW_AT_encoding, &a), &enc) &&
		       (enc == DW_ATE_float || enc == DW_ATE_complex_float);
	case DW_TAG_array_type:
		return dwarf_formref_die(dwarf_attr(&t, DW_AT_type, &a), &sub) &&
		       has_float(sub);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		if (dwarf_child(&t, &m))
			return 0;
		do {
			if (dwarf_tag(&m) == DW_TAG_member &&
			    dwarf_formref_die(dwarf_attr(&m, DW_AT_type, &a), &sub) &&
			    has_float(sub))
				return 1;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	return 0;
}

char *sysv_result(Dwarf_Die *fn, Dwarf_Die *type, int *nregs, int *indirect)
{
	Dwarf_Attribute a;
	Dwarf_Word size;
	Dwarf_Die t;

	*indirect = 0;
	if (!dwarf_formref_die(dwarf_attr_integrate(fn, DW_AT_type, &a), type))
		return xstrdup("the function returns nothing (void)");
	t = *type;
	if (dwarf_peel_type(&t, &t) || dwarf_aggregate_size(&t, &size))
		return xstrdup("the result has no size");
	if (has_float(t))
		return xstrdup("the result is or holds a float, returned in SSE "
			       "registers, which the probe does not read");
	if (size > 16) {
		*indirect = dwarf_tag(&t) == DW_TAG_structure_type ||
			    dwarf_tag(&t) == DW_TAG_union_type ||
			    dwarf_tag(&t) == DW_TAG_class_type;
		if (!*indirect)
			return xstrdup("the result is larger than two registers");
		*nregs = 1;
		return NULL;
	}
	*nregs = size > 8 ? 2 : 1;
	return NULL;
}
