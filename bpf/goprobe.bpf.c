// SPDX-License-Identifier: GPL-2.0
/*
 * One data-driven uprobe program for Go binaries.  Every attached site
 * carries its plan's index as the BPF cookie; the plan (compiled by the
 * loader from DWARF offsets, readplan.c) says which blocks of user memory
 * to read, each in one bpf_probe_read_user (a call costs ~90 ns here
 * whatever its size), and where each value is in them.  Entries at a
 * prologue's stack-check JBE are dropped when the branch will be taken:
 * the function is about to grow its stack and restart, and the restart is
 * the real entry.  Entry arguments are saved per goroutine so that exits
 * (RET sites, never uretprobes: the Go runtime moves stacks) can read
 * through them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "goprobe.h"

char LICENSE[] SEC("license") = "GPL";

/* Ring-buffer bytes pending before the consumer is woken. */
const volatile __u64 wakeup_bytes = 64 * 1024;
/*
 * Set when the probes are attached to every process of the binary: the
 * target's processes are then those in "procs" (the first put there by
 * the loader, the ones they start by gp_fork).
 */
const volatile __u32 follow = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GP_MAX_SITES);
	__type(key, __u32);
	__type(value, struct gp_plan);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GP_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Where a probe keeps its words (goprobe.h: the registers, SP, the saved
 * arguments) and reads its blocks after them, before taking the values
 * out: per CPU, so that it stays in the cache (reading into the ring
 * buffer directly cost ~100 ns more per record).  What changes from block
 * to block lives here, where the verifier does not track values: on the
 * BPF stack it would follow every combination of nil blocks.  A uprobe
 * program may be preempted, so @busy detects a second probe on the CPU.
 */
#define NWIN 4

struct scratch {
	__u32 busy;
	__u32 nil_mask;         /* bit i: block i is nil */
	__u64 win_addr[NWIN];   /* windows read at lone fields */
	__u16 win_doff[NWIN];
	__u32 win_next;
	__u32 unwoken;          /* fill checks above the wake-up mark */
	__u32 unchecked;        /* records sent since the last fill check */
	__u32 level;            /* the fill's quarters at the last check */
	__u32 pid;              /* the probe's process (one helper call a probe) */
	__u64 words[GP_ROOT_BYTES / 8];  /* the data follows at once */
	__u8 data[GP_DATA_BYTES + 8];   /* + a value read at the very end */
	struct gp_record rec;           /* the record, before it is sent */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratches SEC(".maps");

/*
 * Records each CPU's probes sent (the exec records are GP_STAT_EXECS):
 * the consumer's count must come to their sum.  Per CPU and not atomic:
 * the scratch's busy flag keeps probes on a CPU one at a time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} procs SEC(".maps");

/* Goroutine ids are per process: the key has both. */
struct frame_key {
	__u64 goid;
	__u32 pid;
	__u32 func;
	__u32 depth;
	__u32 pad;
};

struct saved_args {
	__u64 arg[GP_SAVED_ARGS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct frame_key);
	__type(value, struct saved_args);
} frames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct frame_key);	/* depth always 0 */
	__type(value, __u32);
} depths SEC(".maps");

static __always_inline void count(__u32 stat)
{
	__u64 *n = bpf_map_lookup_elem(&stats, &stat);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* The registers and SP into the words: ctx may only be read at constant offsets. */
static __always_inline void copy_regs(__u64 *w, struct pt_regs *ctx)
{
	w[GP_RAX] = ctx->ax;
	w[GP_RBX] = ctx->bx;
	w[GP_RCX] = ctx->cx;
	w[GP_RDI] = ctx->di;
	w[GP_RSI] = ctx->si;
	w[GP_R8] = ctx->r8;
	w[GP_R9] = ctx->r9;
	w[GP_R10] = ctx->r10;
	w[GP_R11] = ctx->r11;
	w[GP_R14] = ctx->r14;
	w[GP_RDX] = ctx->dx;
	w[GP_RBP] = ctx->bp;
	w[GP_R12] = ctx->r12;
	w[GP_R13] = ctx->r13;
	w[GP_R15] = ctx->r15;
	w[GP_TID] = 0;
	w[GP_IP] = ctx->ip;
	w[GP_WORD_SP] = ctx->sp;
}

static __always_inline __u64 reg(struct scratch *sc, unsigned int r)
{
	return r < GP_NREGS ? sc->words[r] : 0;
}

static __always_inline __u64 goid_of(struct scratch *sc, struct gp_plan *p)
{
	__u64 goid = 0;

	if (p->goid_off < 0)
		return sc->words[GP_TID];
	bpf_probe_read_user(&goid, sizeof(goid), (void *)(sc->words[GP_R14] + p->goid_off));
	return goid;
}

/*
 * Read @len bytes at @addr into the scratch data at @doff.  The two bounds are
 * what the verifier can check: a small read may start anywhere below
 * GP_DATA_BYTES - GP_SMALL, a large one below GP_DATA_BYTES - GP_MAX_BLOCK
 * (the loader places blocks so).
 */
static __always_inline long read_into(struct scratch *sc, __u32 doff, __u32 len,
				      __u64 addr)
{
	if (len <= GP_SMALL) {
		if (!len || doff > GP_DATA_BYTES - GP_SMALL)
			return -1;
		return bpf_probe_read_user(sc->data + doff, len, (void *)addr);
	}
	if (len > GP_MAX_BLOCK || doff > GP_DATA_BYTES - GP_MAX_BLOCK)
		return -1;
	return bpf_probe_read_user(sc->data + doff, len, (void *)addr);
}

/*
 * A lone field (a proto2 *uint64 and the like): fields allocated together
 * sit next to each other, so read GP_SMALL bytes at the first one and copy
 * the next ones out of them instead of reading each.
 */
static __always_inline long read_lone(struct scratch *sc, __u32 doff, __u32 len,
				      __u64 addr)
{
	if (len > 8 || doff > GP_DATA_BYTES - 8)
		return -1;
	for (int i = 0; i < NWIN; i++) {
		__u64 d = addr - sc->win_addr[i];

		if (!sc->win_addr[i])
			break;
		if (d <= GP_SMALL - len) {
			__u64 src = sc->win_doff[i] + d;

			if (src > GP_DATA_BYTES - 8)
				break;
			*(__u64 *)(sc->data + doff) = *(__u64 *)(sc->data + src);
			return 0;
		}
	}
	if (!read_into(sc, doff, GP_SMALL, addr)) {
		__u32 i = sc->win_next++ & (NWIN - 1);

		sc->win_addr[i] = addr;
		sc->win_doff[i] = (__u16)doff;
		return 0;
	}
	/* The window ran into unmapped memory: read exactly. */
	return read_into(sc, doff, len, addr);
}

struct blocks_ctx {
	struct scratch *sc;
	struct gp_plan *p;
};

/*
 * Run the site's block @i, marking it nil if it is: its base is the word
 * at its @word, nil if it is a pointer an earlier block read and that
 * block was nil or the pointer NULL.  bpf_loop()'s callback: the verifier
 * walks it once, where an unrolled loop of GP_MAX_BLOCKS had it walk
 * every block's paths (56,675 instructions processed against 718, most
 * of a capture's start: docs/results/probes.md); the kernel inlines the loop
 * into direct calls.
 */
static long read_block(__u32 i, void *arg)
{
	struct blocks_ctx *c = arg;
	struct scratch *sc = c->sc;
	struct gp_plan *p = c->p;

	__u64 k = i;

	if (i >= p->nblocks)
		return 1;
	/* bounded in the register used: the compiler drops a C mask as known */
	asm volatile("%0 &= %1" : "+r"(k) : "i"(GP_MAX_BLOCKS - 1));
	struct gp_block *b = &p->blocks[k];
	__u32 doff = b->doff, word = b->word, parent = b->parent;
	__u64 base;
	long err;

	if (word > GP_ROOT_BYTES + GP_DATA_BYTES - 8)
		return 1;
	base = *(__u64 *)((__u8 *)sc->words + word);
	if (parent && (!base || ((sc->nil_mask >> ((parent - 1) & 31)) & 1))) {
		sc->nil_mask |= 1u << k;
		return 0;
	}
	if (b->flags & GP_BLOCK_WINDOW)
		err = read_lone(sc, doff, b->len, base + b->off);
	else
		err = read_into(sc, doff, b->len, base + b->off);
	if (err)
		sc->nil_mask |= 1u << k;
	return 0;
}

static __always_inline void read_blocks(struct scratch *sc, struct gp_plan *p)
{
	struct blocks_ctx c = { sc, p };

	sc->nil_mask = 0;
	sc->win_next = 0;
	for (int i = 0; i < NWIN; i++)
		sc->win_addr[i] = 0;
	bpf_loop(GP_MAX_BLOCKS, read_block, &c, 0);
}

/*
 * Each read's 8 bytes at its place in the words or the blocks, and which blocks were
 * nil: the loader masks each value to its read's size and zeroes those of
 * nil blocks and those past the site's reads (engine.c), work the probe
 * would do in the target's time.
 */
static __always_inline void take_values(struct gp_record *r, struct scratch *sc,
					struct gp_plan *p)
{
	for (int i = 0; i < GP_MAX_READS; i++) {
		__u32 doff = p->vals[i].doff;

		if (i >= p->nreads || doff > GP_ROOT_BYTES + GP_DATA_BYTES)
			break;
		r->val[i] = *(__u64 *)((__u8 *)sc->words + doff);
	}
	r->nil_mask = sc->nil_mask;
}

/*
 * Wake the consumer when the ring holds wakeup_bytes (a quarter of it),
 * and while it still does, again every 512 records of this CPU; every 32
 * past half the ring, every record past three quarters.  A wake-up is an
 * interrupt that costs the target microseconds: one on every record until
 * a consumer on a busy machine is scheduled cost more than the probe
 * itself (bench/ebpf-overhead-rust), but near a full ring that cost slows
 * the target down to its consumer, which a drop would fail the capture.
 * Below the mark the consumer drains by its poll timer (engine.c).
 * Below half the ring the fill is looked at every CHECK_EVERY records of
 * the CPU only: the query is a helper call and reads the consumer's
 * position, a line the consumer writes on every record it takes.  Past
 * half every record looks: checking every 16th there too lost records
 * when the consumer stalled (its back-pressure gone, docs/results/probes.md).
 */
#define CHECK_EVERY 16

static __always_inline __u64 wake_flags(struct scratch *sc)
{
	if (sc->level < 2 && sc->unchecked++ % CHECK_EVERY)
		return BPF_RB_NO_WAKEUP;

	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u32 level = avail >= 3 * wakeup_bytes ? 3 : avail >= 2 * wakeup_bytes ? 2 :
		      avail >= wakeup_bytes ? 1 : 0;
	/* in checks: every record's past half, every CHECK_EVERY's below */
	__u32 every = level == 3 ? 1 : level == 2 ? 32 : 512 / CHECK_EVERY;

	sc->level = level;
	if (!level) {
		sc->unwoken = 0;
		return BPF_RB_NO_WAKEUP;
	}
	return sc->unwoken++ % every ? BPF_RB_NO_WAKEUP : BPF_RB_FORCE_WAKEUP;
}

/*
 * The site's record from the words in @sc (its saved arguments @saved),
 * built in the scratch and sent with its site's values only (GP_REC_BYTES:
 * 112 ring bytes instead of 224 for bench/rust-apply.probes's 9 values,
 * half the memory written and twice the records between wake-ups).
 */
static __always_inline void emit(struct scratch *sc, __u32 id,
				 struct gp_plan *p, __u64 goid,
				 struct saved_args *saved)
{
	struct gp_record *r = &sc->rec;
	__u64 len = GP_REC_BYTES(p->nreads);

	for (int i = 0; i < GP_SAVED_ARGS; i++)
		sc->words[GP_WORD_SAVED + i] = saved ? saved->arg[i] : 0;
	read_blocks(sc, p);
	r->site = id;
	r->goid = goid;
	r->pid = sc->pid;
	r->pad = 0;
	take_values(r, sc, p);
	__u64 flags = wake_flags(sc);

	/* kept in a register, so that the verifier sees the bound checked */
	asm volatile("" : "+r"(len));
	if (len > sizeof(*r) || bpf_ringbuf_output(&events, r, len, flags)) {
		count(GP_STAT_DROPS);
		return;
	}
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&sent, &zero);

	if (n)
		*n += 1;
}

/*
 * The calls on this thread whose returns a uretprobe takes, nested (a
 * return: @add -1): the kernel takes no return past GP_URET_DEPTH, so an
 * entry that deep saves no frame and counts as one not saved (the run
 * fails), where its exit would be missing and the next return would
 * take its frame.  0, or -1 for that entry.
 */
static __always_inline int uret_depth(struct scratch *sc, __u64 goid, int add)
{
	struct frame_key k = { .goid = goid, .pid = sc->pid, .func = GP_URET_FUNC };
	__u32 *dp = bpf_map_lookup_elem(&depths, &k);
	__u32 d = dp ? *dp : 0;

	if (add > 0 && d >= GP_URET_DEPTH) {
		count(GP_STAT_DEPTH);
		return -1;
	}
	d += add;
	if (d)
		bpf_map_update_elem(&depths, &k, &d, BPF_ANY);
	else
		bpf_map_delete_elem(&depths, &k);
	return 0;
}

static __always_inline void entry(struct scratch *sc, __u32 id,
				  struct gp_plan *s, __u64 goid)
{
	if (!s->nsaved) {
		emit(sc, id, s, goid, 0);
		return;
	}
	if (s->uret && uret_depth(sc, goid, 1))
		return;
	__u32 pid = sc->pid;
	struct frame_key dk = { .goid = goid, .pid = pid, .func = s->func };
	__u32 *dp = bpf_map_lookup_elem(&depths, &dk);
	__u32 depth = dp ? *dp : 0;
	struct frame_key fk = { .goid = goid, .pid = pid, .func = s->func,
				.depth = depth };
	struct saved_args a = {};

	for (int i = 0; i < GP_SAVED_ARGS; i++)
		if (i < s->nsaved)
			a.arg[i] = reg(sc, s->saved[i]);
	if (bpf_map_update_elem(&frames, &fk, &a, BPF_ANY)) {
		count(GP_STAT_DEPTH);
		return;
	}
	depth++;
	bpf_map_update_elem(&depths, &dk, &depth, BPF_ANY);
	emit(sc, id, s, goid, &a);
}

static __always_inline void leave(struct scratch *sc, __u32 id,
				  struct gp_plan *s, __u64 goid)
{
	__u32 pid = sc->pid;
	struct frame_key dk = { .goid = goid, .pid = pid, .func = s->func };
	__u32 *dp = bpf_map_lookup_elem(&depths, &dk);

	if (!dp || !*dp) {
		count(GP_STAT_UNMATCHED_EXITS);
		return;
	}
	__u32 depth = *dp - 1;
	struct frame_key fk = { .goid = goid, .pid = pid, .func = s->func,
				.depth = depth };
	struct saved_args *a = bpf_map_lookup_elem(&frames, &fk);

	if (!a) {
		count(GP_STAT_UNMATCHED_EXITS);
		return;
	}
	emit(sc, id, s, goid, a);
	bpf_map_delete_elem(&frames, &fk);
	if (s->uret)
		uret_depth(sc, goid, -1);
	/*
	 * A depth back at 0 leaves the map: goroutine ids are never reused,
	 * so a long-lived process starting goroutines (a served harness's
	 * tries) would otherwise fill it, and then frames, with dead ones.
	 */
	if (depth)
		bpf_map_update_elem(&depths, &dk, &depth, BPF_ANY);
	else
		bpf_map_delete_elem(&depths, &dk);
}

/* The site's entry or exit, on the CPU's scratch (@sc, held busy). */
static __always_inline void site(struct scratch *sc, struct pt_regs *ctx,
				 __u32 id, struct gp_plan *s, __u64 pid_tgid)
{
	copy_regs(sc->words, ctx);
	sc->pid = pid_tgid >> 32;
	if (s->goid_off < 0)     /* no goroutines: the thread pairs them */
		sc->words[GP_TID] = (__u32)pid_tgid;
	/* The goroutine pairs entries with exits; elsewhere it is not read. */
	__u64 goid = s->kind == GP_SITE_EXIT || s->nsaved ? goid_of(sc, s) : 0;

	if (s->kind == GP_SITE_EXIT)
		leave(sc, id, s, goid);
	else
		entry(sc, id, s, goid);
}

SEC("uprobe")
int goprobe(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx), zero = 0;
	struct gp_plan *s = bpf_map_lookup_elem(&sites, &id);
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct scratch *sc;

	if (!s)
		return 0;
	if (follow) {
		__u32 pid = pid_tgid >> 32;

		if (!bpf_map_lookup_elem(&procs, &pid))
			return 0;
	}
	/* JBE is taken on CF or ZF: the stack will grow, then re-enter. */
	if (s->kind == GP_SITE_ENTRY_CHECK && (ctx->flags & 0x41)) {
		count(GP_STAT_SKIPPED_MORESTACK);
		return 0;
	}
	sc = bpf_map_lookup_elem(&scratches, &zero);
	if (!sc)
		return 0;
	if (sc->busy) {
		count(GP_STAT_BUSY);
		return 0;
	}
	sc->busy = 1;
	site(sc, ctx, id, s, pid_tgid);
	sc->busy = 0;
	return 0;
}

/*
 * A process of the target starts another (fork, or Go's clone for exec):
 * follow it.  The tracepoint runs before the child is first woken, so
 * nothing it does is missed.  Threads share their parent's thread group
 * and are followed already.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(gp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, cpid = child->tgid, one = 1;

	if (!follow || cpid == ppid || !bpf_map_lookup_elem(&procs, &ppid))
		return 0;
	if (bpf_map_update_elem(&procs, &cpid, &one, BPF_ANY))
		count(GP_STAT_DROPS);
	return 0;
}

/*
 * A followed process runs a program: say so in the stream, before any
 * record of the program (its processes are numbered in this order).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(gp_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct gp_record *r;

	if (!follow || !bpf_map_lookup_elem(&procs, &pid))
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(GP_STAT_DROPS);
		return 0;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->site = GP_SITE_EXEC;
	r->pid = pid;
	bpf_ringbuf_submit(r, 0);
	count(GP_STAT_EXECS);
	return 0;
}
