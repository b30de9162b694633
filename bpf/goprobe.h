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
 *
 * The BPF program does not follow reads one by one: a user-memory read
 * costs about as much per call whatever its size (~90 ns on the nested VM
 * this was measured on), so the loader (readplan.c) compiles a site's
 * reads into a plan of blocks, one bulk read per struct span, each
 * struct read once.  The program reads the blocks into a per-CPU scratch
 * buffer and takes each read's value from there into the record (a
 * register's own value from its word, which no block copies).
 */
#ifndef GOPROBE_H
#define GOPROBE_H

#define GP_MAX_READS 24
#define GP_MAX_HOPS 7
#define GP_MAX_SITES 256
#define GP_SAVED_ARGS 4
#define GP_MAX_BLOCKS 32
#define GP_DATA_BYTES 1024	/* bytes of a site's blocks */
#define GP_MAX_BLOCK 512	/* bytes of one bulk read */
#define GP_SMALL 32		/* a small block: the window of a lone field */

enum gp_src { GP_SRC_REG, GP_SRC_STACK, GP_SRC_SAVED };

/*
 * Register numbers: the Go amd64 register ABI's, in argument order, then
 * the others the System V ABI's DWARF may name (bpf/sysv-resolve.h),
 * GP_TID, the thread's id (set only where there are no goroutines), and
 * GP_IP, the probe's address as the process has it (its distance from the
 * site's address in the file tells a position-independent binary's load
 * bias: a Rust vtable's address is compared so, bpf/expr.h).
 */
enum gp_reg { GP_RAX, GP_RBX, GP_RCX, GP_RDI, GP_RSI, GP_R8, GP_R9, GP_R10,
	      GP_R11, GP_R14, GP_RDX, GP_RBP, GP_R12, GP_R13, GP_R15, GP_TID,
	      GP_IP, GP_NREGS };

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
	/* A C bit-field: the loader keeps bits [bit_off, bit_off + bit_size)
	 * of the value read, sign-extended if bit_signed (0: the whole value). */
	unsigned char bit_off, bit_size, bit_signed;
	/* The value is a thread id of the process: the loader writes it as
	 * the thread's index, as GP_TID's (a spec's "as thread"). */
	unsigned char thread;
};

struct gp_site {
	unsigned int func;      /* function index: pairs entries with exits */
	unsigned int kind;      /* enum gp_kind */
	unsigned int nreads;
	unsigned int nsaved;    /* entry: argument registers to save */
	unsigned char saved[GP_SAVED_ARGS]; /* enum gp_reg of each saved arg */
	struct gp_read reads[GP_MAX_READS];
};

/* Where a block's address starts from. */
enum gp_base { GP_BASE_REG, GP_BASE_SAVED, GP_BASE_SP, GP_BASE_BLOCK };

enum gp_block_flags {
	GP_BLOCK_WINDOW = 1,	/* a lone field: read GP_SMALL bytes and let
				 * later lone fields inside them copy instead */
};

/*
 * The probe's words: the registers (enum gp_reg), SP and the saved
 * arguments, then the blocks' data.  Every base is one of them, so the
 * program loads it at @word whatever its kind (readplan.c).
 */
#define GP_WORD_SP GP_NREGS
#define GP_WORD_SAVED (GP_NREGS + 1)
#define GP_ROOT_BYTES (8 * (GP_WORD_SAVED + GP_SAVED_ARGS))

/*
 * One bulk read: @len bytes at base + @off into the scratch data at
 * @doff.  The base is a register, a saved argument, SP, or the pointer at
 * data offset @ptr that an earlier block (@reg) read; a NULL pointer or a
 * failed read marks the block (and every block reading through it) nil.
 * For the program, @word is where the base is in the probe's words and
 * @parent the earlier block + 1 (0: a root, never nil).
 */
struct gp_block {
	unsigned char base;     /* enum gp_base */
	unsigned char reg;      /* register, saved argument or parent block */
	unsigned char flags;    /* enum gp_block_flags */
	unsigned char parent;
	unsigned short ptr;
	unsigned short doff;
	unsigned short len;
	unsigned short word;
	int off;
};

/*
 * Where a read's value is: at @doff of the probe's words, which the
 * blocks' data follows (a register's or saved argument's own value is
 * its word: no block copies it), nil when block @block is.
 */
#define GP_NO_BLOCK 0xff	/* a word's own value, never nil */

struct gp_value {
	unsigned char block;    /* nil when this block is; GP_NO_BLOCK */
	unsigned char size;
	unsigned short doff;    /* in the words (GP_ROOT_BYTES: the data) */
};

/*
 * A thread's calls whose returns a uretprobe takes, nested, that the
 * kernel follows (its MAX_URETPROBE_DEPTH): deeper, it takes no return.
 */
#define GP_URET_DEPTH 64
#define GP_URET_FUNC 0xffffffffu	/* the depths key of their count */

/* What the BPF program runs for a site (the "sites" map). */
struct gp_plan {
	unsigned int func;
	unsigned int kind;
	unsigned int uret;      /* its function's returns are a uretprobe's */
	unsigned int nsaved;
	unsigned int nblocks;
	unsigned int nreads;
	unsigned char saved[GP_SAVED_ARGS];
	long long goid_off;     /* offset of goid in runtime.g; -1: the thread id */
	struct gp_block blocks[GP_MAX_BLOCKS];
	struct gp_value vals[GP_MAX_READS];
};

/*
 * A ring-buffer record: one value per read of the site (in the ring, only
 * those: GP_REC_BYTES; the consumer zeroes the rest).  With followed
 * targets (gp_follow()) a process that runs a program (the first, and
 * every one the target starts that execs) is announced by a record of
 * site GP_SITE_EXEC, before any record the program makes.
 */
struct gp_record {
	unsigned int site;
	/* bit i: read i met a NULL pointer (in the ring: bit b, block b was
	 * nil, and each value is the 8 bytes at its read: the engine masks) */
	unsigned int nil_mask;
	unsigned long long goid; /* 0 at entries that save no arguments */
	unsigned int pid;       /* the process (thread group) it came from */
	unsigned int pad;
	unsigned long long val[GP_MAX_READS];
};

/* A record in the ring holds its site's @n values only; the rest are 0. */
#define GP_REC_BYTES(n) (__builtin_offsetof(struct gp_record, val) + 8u * (n))

#define GP_SITE_EXEC 0xffffffffu

/* Counters in the "stats" array. */
enum gp_stat { GP_STAT_DROPS, GP_STAT_UNMATCHED_EXITS, GP_STAT_DEPTH,
	       GP_STAT_SKIPPED_MORESTACK, GP_STAT_BUSY, GP_STAT_EXECS, GP_NSTATS };

#endif
