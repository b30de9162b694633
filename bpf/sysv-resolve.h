/* SPDX-License-Identifier: MIT */
/*
 * The System V ABI (x86-64) beside Go's: where a C or C++ function is
 * probed and where its arguments and result are, from its DWARF (libdw)
 * and call-frame information.  binary.c and the expressions (expr-sysv.h,
 * expr-rust.h) call these for a binary whose language (DW_AT_language) is
 * not Go; the spec language and the reads they yield (struct gp_read) are
 * the same.  They read DWARF and ELF, never the binary's other state.
 *
 * The probe site: a function whose parameters have location lists
 * (optimized code: the list says where each is at every address, the
 * registers of the call at the first instruction) or registers is probed
 * at its first instruction.  One with a parameter in a slot of its own
 * frame (-O0: DW_OP_fbreg, which the prologue writes) is probed where the
 * line table's next row starts, after the prologue, as debuggers put a
 * breakpoint on a function.
 */
#ifndef SYSV_RESOLVE_H
#define SYSV_RESOLVE_H

#include <elfutils/libdw.h>
#include <libelf.h>

struct cap_err;

#define SYSV_SP (-2)    /* a base register: the stack pointer */

/*
 * The address @fn (of binary @path, for messages) is probed at: its first
 * instruction or its prologue's end.
 */
int sysv_probe_pc(const char *path, Dwarf_Die *fn, Dwarf_Addr *pc,
		  struct cap_err *err);

/*
 * @fn's frame base at @pc as a register (enum gp_reg, or SYSV_SP) plus
 * @off bytes: DW_AT_frame_base, the CFA through @elf's call-frame
 * information when it is DW_OP_call_frame_cfa.  NULL, or why not.
 */
char *sysv_frame_base(Elf *elf, Dwarf_Die *fn, Dwarf_Addr pc,
		      int *reg, long *off);

/*
 * How far the CFA is above the stack pointer at @pc (@k: CFA = SP + @k),
 * from @elf's call-frame information: a slot addressed from SP there is at
 * SP + 8 - @k + its offset at a RET, where SP is CFA - 8.  NULL, or why not.
 */
char *sysv_cfa_above_sp(Elf *elf, Dwarf_Addr pc, long *k);

/*
 * @fn's result at a return (its DW_AT_type into @type): in @nregs of RAX
 * and RDX (an integer, pointer or enum; a struct or union of at most 16
 * bytes without floats), or with @indirect in memory RAX points to (the
 * memory class: larger structs, which the caller's hidden pointer names).
 * NULL, or why not (a float, no result).
 */
char *sysv_result(Dwarf_Die *fn, Dwarf_Die *type, int *nregs, int *indirect);

/* The probe's register for DWARF's x86-64 register @dw, or -1 (SP: SYSV_SP). */
int sysv_reg(unsigned dw);

#endif
