// SPDX-License-Identifier: GPL-2.0
/*
 * One data-driven uprobe program for Go binaries.  Every attached site
 * carries its descriptor index as the BPF cookie; the descriptor (written
 * by the loader from DWARF) says what to read.  Entries at a prologue's
 * stack-check JBE are dropped when the branch will be taken: the function
 * is about to grow its stack and restart, and the restart is the real
 * entry.  Entry arguments are saved per goroutine so that exits (RET sites,
 * never uretprobes: the Go runtime moves stacks) can read through them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "goprobe.h"

char LICENSE[] SEC("license") = "GPL";

/* Ring-buffer bytes pending before the consumer is woken. */
const volatile __u64 wakeup_bytes = 64 * 1024;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GP_MAX_SITES);
	__type(key, __u32);
	__type(value, struct gp_site);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GP_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct frame_key {
	__u64 goid;
	__u32 func;
	__u32 depth;
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

/* The argument registers, copied once: ctx may only be read at constant offsets. */
struct regs {
	__u64 r[GP_NREGS];
	__u64 sp;
};

static __always_inline void copy_regs(struct regs *g, struct pt_regs *ctx)
{
	g->r[GP_RAX] = ctx->ax;
	g->r[GP_RBX] = ctx->bx;
	g->r[GP_RCX] = ctx->cx;
	g->r[GP_RDI] = ctx->di;
	g->r[GP_RSI] = ctx->si;
	g->r[GP_R8] = ctx->r8;
	g->r[GP_R9] = ctx->r9;
	g->r[GP_R10] = ctx->r10;
	g->r[GP_R11] = ctx->r11;
	g->r[GP_R14] = ctx->r14;
	g->sp = ctx->sp;
}

static __always_inline __u64 reg(struct regs *g, unsigned int r)
{
	return r < GP_NREGS ? g->r[r] : 0;
}

static __always_inline __u64 goid_of(struct regs *g, struct gp_site *s)
{
	__u64 goid = 0;

	bpf_probe_read_user(&goid, sizeof(goid), (void *)(g->r[GP_R14] + s->goid_off));
	return goid;
}

/*
 * User memory read through a few 128-byte windows, refilled per record: a
 * probe's reads cluster in a few structs (the receiver, a message), and
 * one bulk read costs about what one 8-byte read does.
 */
#define WIN 128
#define NWIN 4

struct cache {
	__u64 base[NWIN];
	__u32 next;
	__u8 data[NWIN][WIN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cache);
} caches SEC(".maps");

static __always_inline int read_u64(struct cache *c, __u64 addr, __u64 *out)
{
	for (int w = 0; w < NWIN; w++) {
		__u64 off = addr - c->base[w];

		if (!c->base[w])
			break;	/* windows fill in order from 0 */
		if (off <= WIN - 8) {
			*out = *(__u64 *)&c->data[w][off & (WIN - 8)];
			if (!(off & 7))
				return 0;
			break;	/* unaligned: read it directly */
		}
	}
	if (!(addr & 7)) {
		__u32 slot = c->next++ & (NWIN - 1);

		if (!bpf_probe_read_user(c->data[slot], WIN, (void *)addr)) {
			c->base[slot] = addr;
			*out = *(__u64 *)c->data[slot];
			return 0;
		}
		c->base[slot] = 0;
		c->next = slot;	/* keep the filled windows contiguous */
	}
	return bpf_probe_read_user(out, 8, (void *)addr);
}

/* Follow one read's path; returns 0 and sets *out, or 1 on a NULL hop. */
static __always_inline int follow(struct cache *c, struct gp_read *rd,
				  __u64 start, __u64 *out)
{
	__u64 addr = start + rd->off[0];
	__u64 v = 0;

	for (int h = 1; h < GP_MAX_HOPS; h++) {
		if (h >= rd->nhops)
			break;
		__u64 p = 0;

		if (read_u64(c, addr, &p) || !p)
			return 1;
		addr = p + rd->off[h];
	}
	__u32 n = rd->size & 7;

	if (n) {	/* 1, 2 or 4 bytes: may end the object, read exactly */
		if (bpf_probe_read_user(&v, n, (void *)addr))
			return 1;
	} else if (read_u64(c, addr, &v)) {
		return 1;
	}
	*out = v;
	return 0;
}

static __always_inline void emit(struct regs *ctx, __u32 id,
				 struct gp_site *s, __u64 goid,
				 struct saved_args *saved)
{
	__u32 zero = 0;
	struct cache *c = bpf_map_lookup_elem(&caches, &zero);
	struct gp_record *r;

	if (!c)
		return;
	for (int w = 0; w < NWIN; w++)
		c->base[w] = 0;
	c->next = 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(GP_STAT_DROPS);
		return;
	}
	r->site = id;
	r->nil_mask = 0;
	r->goid = goid;
	for (int i = 0; i < GP_MAX_READS; i++) {
		r->val[i] = 0;
		if (i >= s->nreads)
			continue;
		struct gp_read *rd = &s->reads[i];
		__u64 start = 0;

		if (rd->src == GP_SRC_REG)
			start = reg(ctx, rd->reg);
		else if (rd->src == GP_SRC_STACK)
			bpf_probe_read_user(&start, 8, (void *)(ctx->sp + rd->stack_off));
		else if (saved)
			start = saved->arg[rd->reg & (GP_SAVED_ARGS - 1)];
		if (rd->nhops == 0)
			r->val[i] = start;
		else if (follow(c, rd, start, &r->val[i]))
			r->nil_mask |= 1u << i;
	}
	__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
		      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(r, flags);
}

static __always_inline void entry(struct regs *ctx, __u32 id,
				  struct gp_site *s, __u64 goid)
{
	if (!s->nsaved) {
		emit(ctx, id, s, goid, 0);
		return;
	}
	struct frame_key dk = { .goid = goid, .func = s->func };
	__u32 *dp = bpf_map_lookup_elem(&depths, &dk);
	__u32 depth = dp ? *dp : 0;
	struct frame_key fk = { .goid = goid, .func = s->func, .depth = depth };
	struct saved_args a = {};

	for (int i = 0; i < GP_SAVED_ARGS; i++)
		if (i < s->nsaved)
			a.arg[i] = reg(ctx, s->saved[i]);
	if (bpf_map_update_elem(&frames, &fk, &a, BPF_ANY)) {
		count(GP_STAT_DEPTH);
		return;
	}
	depth++;
	bpf_map_update_elem(&depths, &dk, &depth, BPF_ANY);
	emit(ctx, id, s, goid, &a);
}

static __always_inline void leave(struct regs *ctx, __u32 id,
				  struct gp_site *s, __u64 goid)
{
	struct frame_key dk = { .goid = goid, .func = s->func };
	__u32 *dp = bpf_map_lookup_elem(&depths, &dk);

	if (!dp || !*dp) {
		count(GP_STAT_UNMATCHED_EXITS);
		return;
	}
	__u32 depth = *dp - 1;
	struct frame_key fk = { .goid = goid, .func = s->func, .depth = depth };
	struct saved_args *a = bpf_map_lookup_elem(&frames, &fk);

	if (!a) {
		count(GP_STAT_UNMATCHED_EXITS);
		return;
	}
	emit(ctx, id, s, goid, a);
	bpf_map_delete_elem(&frames, &fk);
	bpf_map_update_elem(&depths, &dk, &depth, BPF_ANY);
}

SEC("uprobe")
int goprobe(struct pt_regs *ctx)
{
	__u32 id = bpf_get_attach_cookie(ctx);
	struct gp_site *s = bpf_map_lookup_elem(&sites, &id);

	if (!s)
		return 0;
	/* JBE is taken on CF or ZF: the stack will grow, then re-enter. */
	if (s->kind == GP_SITE_ENTRY_CHECK && (ctx->flags & 0x41)) {
		count(GP_STAT_SKIPPED_MORESTACK);
		return 0;
	}
	struct regs g;

	copy_regs(&g, ctx);
	__u64 goid = goid_of(&g, s);

	if (s->kind == GP_SITE_EXIT)
		leave(&g, id, s, goid);
	else
		entry(&g, id, s, goid);
	return 0;
}
