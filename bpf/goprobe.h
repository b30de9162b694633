/* SPDX-License-Identifier: MIT */
/*
 * Shared between goprobe.bpf.c and its loader: the per-site descriptors the
 * loader writes and the records the BPF program emits.
 *
 * A site is one uprobe (a function's entry or one of its RET instructions).
 * Its descriptor lists up to GP_MAX_READS values to read.  A read starts
 * from a register, a stack slot (SP + off) or an argument register saved at
 * the function's entry (exits), then follows a path: addr = start + off[0];
 * for each further hop, addr = *(u64 *)addr + off[i] (a NULL pointer stops
 * the read and sets its bit in the record's nil mask); finally @size bytes
 * are read at addr.  nhops == 0 takes the start value itself.
 */
#ifndef GOPROBE_H
#define GOPROBE_H

#define GP_MAX_READS 24
#define GP_MAX_HOPS 7
#define GP_MAX_SITES 256
#define GP_SAVED_ARGS 4

enum gp_src { GP_SRC_REG, GP_SRC_STACK, GP_SRC_SAVED };

/* Register numbers of the Go amd64 register ABI, in argument order. */
enum gp_reg { GP_RAX, GP_RBX, GP_RCX, GP_RDI, GP_RSI, GP_R8, GP_R9, GP_R10,
	      GP_R11, GP_R14, GP_NREGS };

enum gp_kind {
	GP_SITE_ENTRY,        /* function entry at its symbol (no stack check) */
	GP_SITE_ENTRY_CHECK,  /* the prologue's stack-check JBE: skip if taken */
	GP_SITE_EXIT,         /* a RET instruction */
};

struct gp_read {
	unsigned char src;      /* enum gp_src */
	unsigned char reg;      /* enum gp_reg, or saved argument index */
	unsigned char nhops;
	unsigned char size;     /* 1, 2, 4 or 8 */
	int stack_off;
	int off[GP_MAX_HOPS];
};

struct gp_site {
	unsigned int func;      /* function index: pairs entries with exits */
	unsigned int kind;      /* enum gp_kind */
	unsigned int nreads;
	unsigned int nsaved;    /* entry: argument registers to save */
	unsigned char saved[GP_SAVED_ARGS]; /* enum gp_reg of each saved arg */
	long long goid_off;     /* offset of goid in runtime.g */
	struct gp_read reads[GP_MAX_READS];
};

struct gp_record {
	unsigned int site;
	unsigned int nil_mask;  /* bit i: read i met a NULL pointer */
	unsigned long long goid;
	unsigned long long val[GP_MAX_READS];
};

/* Counters in the "stats" array. */
enum gp_stat { GP_STAT_DROPS, GP_STAT_UNMATCHED_EXITS, GP_STAT_DEPTH,
	       GP_STAT_SKIPPED_MORESTACK, GP_NSTATS };

#endif
