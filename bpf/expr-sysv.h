/* SPDX-License-Identifier: MIT */
/*
 * System V's part of an expression's walk (expr-walk.h), for C, C++ and
 * Rust: an argument where its DWARF location says at the probe site
 * (registers, frame slots through the frame base or the CFA, through
 * pointers a debug build's by-reference argument takes), checked against
 * what a return still has; the result in RAX and RDX, or in the memory
 * RAX points to (sysv-resolve.h); the thread's id for goid.  Each
 * returns NULL, or why not, as the walk's moves do.
 */
#ifndef PROBE_EXPR_SYSV_H
#define PROBE_EXPR_SYSV_H

#include "expr-walk.h"

/* One operation @op of an argument's location at @pc into @cur. */
char *sysv_arg_op(struct walk *w, const Dwarf_Op *op, Dwarf_Addr pc,
		  const char *name, struct piece *cur);
/* @fn's result, named ~r0. */
char *sysv_result_pieces(struct walk *w, Dwarf_Die *fn);
/* The thread's id where there are no goroutines (GP_TID, goprobe.h). */
char *sysv_thread_id(struct probe_value *out);

#endif
