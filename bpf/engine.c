// SPDX-License-Identifier: MIT
/* Loader of goprobe.bpf.c: see engine.h. */
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/proc.h"
#include "attach.h"
#include "engine.h"
#include "libraries.h"
#include "readplan.h"
#include "goprobe.skel.h"

#define GP_MAX_LINKS 512
#define GP_MAX_THREADS 4096
#define GP_MAX_OBJECTS 16

/* A file the probes are on: the binary (the first), or a library of it. */
struct gp_object {
	char *path;             /* as attached: the binary's, or the library's real path */
	struct probe_binary *bin;
	int multi_fd[2];        /* GP_ATTACH_MULTI's links of its sites:
				 * uprobes, uretprobes */
};

/* A thread seen where there are no goroutines: its index in its process. */
struct gp_thread {
	unsigned pid;
	unsigned long long tid, index;
};

struct gp_engine {
	const char *path;
	struct probe_binary *bin;
	struct goprobe *skel;
	long goid_off;
	int number_goroutines;
	unsigned long ring_bytes;
	int hold_ring, follow;
	int stdin_fd, poll_ms;  /* the target's stdin (-1: capture's); ring polls */
	struct bpf_link *fork_link, *exec_link;
	unsigned nsites, nfuncs;
	struct gp_plan plans[GP_MAX_SITES];
	unsigned tid_reads[GP_MAX_SITES];   /* bit i: read i is the thread's
					     * (or numbered goroutine's) id */
	struct gp_read bits[GP_MAX_SITES][GP_MAX_READS];  /* bit-fields' bits */
	struct gp_thread threads[GP_MAX_THREADS];
	unsigned nthreads;
	struct gp_object objs[GP_MAX_OBJECTS];
	unsigned nobjs;
	pid_t pid;          /* a running process probed (gp_set_pid()), else 0 */
	unsigned long offs[GP_MAX_LINKS];   /* file offset of each attachment */
	unsigned long long cookie[GP_MAX_LINKS];    /* its site id */
	unsigned char obj[GP_MAX_LINKS];    /* its object */
	unsigned char ret[GP_MAX_LINKS];    /* a uretprobe (System V returns) */
	unsigned nlinks;
	enum gp_attach how;
	struct bpf_link *links[GP_MAX_LINKS];       /* GP_ATTACH_PERF's */
	pthread_t preloader;    /* gp_preload()'s thread, while preloading */
	int preloading, preload_rc, preload_cleanup;
	int ran;                /* gp_run() was called */
	struct cap_err preload_err;
	gp_record_fn fn;
	void *arg;
	struct cap_err *err;    /* the running gp_run()'s, which on_event() fills */
	int short_record;       /* on_event() failed: err says why */
	struct gp_stats stats;
};

/* Effective capability set, from /proc/self/status ("CapEff: hex"). */
static unsigned long long effective_caps(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	if (f)
		fclose(f);
	return caps;
}

int gp_may_probe(struct cap_err *err)
{
	enum { CAP_SYS_ADMIN_BIT = 21, CAP_PERFMON_BIT = 38, CAP_BPF_BIT = 39 };
	unsigned long long caps = effective_caps();
	unsigned long long bpf = (1ULL << CAP_BPF_BIT) | (1ULL << CAP_PERFMON_BIT);

	if (!(caps & (1ULL << CAP_SYS_ADMIN_BIT)) && (caps & bpf) != bpf)
		return cap_fail(err, EXIT_ENV_MISSING, "eBPF capture needs root, or CAP_BPF and "
				"CAP_PERFMON (this process has neither)");
	return 0;
}

struct gp_engine *gp_open(const char *binary, struct cap_err *err)
{
	struct probe_binary *b = probe_open(binary, err);
	long goid_off = !b ? -2 : probe_abi(b) == PROBE_ABI_SYSV ? -1 :
			probe_member(b, "runtime.g", "goid", err);
	struct gp_engine *e;

	if (goid_off < -1 || (b && probe_abi(b) == PROBE_ABI_GO && goid_off < 0)) {
		if (b)
			probe_close(b);
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->path = binary;
	e->bin = b;
	e->goid_off = goid_off;
	e->ring_bytes = 1ul << 20;
	e->objs[0] = (struct gp_object){ xstrdup(binary), b, { -1, -1 } };
	e->nobjs = 1;
	e->stdin_fd = -1;
	e->poll_ms = 50;
	return e;
}

/*
 * Detach every probe: one step on the multi path; one RCU wait per site
 * on the perf-event path, which says so when the rest will take over a
 * second (the first detach's time times the sites left).
 */
/*
 * The links in the order they attach: the libraries' first, the binary's
 * last, so that a call of the binary probed finds its libraries' probes
 * there already; they detach the other way round.
 */
static void link_order(const struct gp_engine *e, unsigned *order)
{
	unsigned n = 0;

	for (unsigned o = e->nobjs; o-- > 0;)
		for (unsigned i = 0; i < e->nlinks; i++)
			if (e->obj[i] == o)
				order[n++] = i;
}

static void detach(struct gp_engine *e)
{
	double start = monotonic_seconds(), each;
	unsigned order[GP_MAX_LINKS];
	int first = 1;

	for (unsigned i = 0; i < e->nobjs; i++)
		for (int k = 0; k < 2; k++) {
			if (e->objs[i].multi_fd[k] >= 0)
				close(e->objs[i].multi_fd[k]);
			e->objs[i].multi_fd[k] = -1;
		}
	link_order(e, order);
	for (unsigned k = 0, i; k < e->nlinks; k++) {
		i = order[e->nlinks - 1 - k];
		if (!e->links[i])
			continue;
		bpf_link__destroy(e->links[i]);
		e->links[i] = NULL;
		each = monotonic_seconds() - start;
		if (first && each * (e->nlinks - k - 1) > 1.0)
			progress("detaching %u more perf-event uprobes, %.2f s each",
				 e->nlinks - k - 1, each);
		first = 0;
	}
	bpf_link__destroy(e->fork_link);
	bpf_link__destroy(e->exec_link);
	e->fork_link = e->exec_link = NULL;
}

static int preloaded(struct gp_engine *e, struct cap_err *err);

void gp_close(struct gp_engine *e)
{
	struct cap_err ignored;

	if (preloaded(e, &ignored) < 0)
		cap_err_release(&ignored);
	detach(e);
	goprobe__destroy(e->skel);
	for (unsigned i = 0; i < e->nobjs; i++) {
		probe_close(e->objs[i].bin);
		free(e->objs[i].path);
	}
	free(e);
}

struct probe_binary *gp_binary(struct gp_engine *e)
{
	return e->bin;
}

struct probe_binary *gp_object(struct gp_engine *e, const char *lib, struct cap_err *err)
{
	char *path;
	struct probe_binary *b;

	if (!lib)
		return e->bin;
	path = lib_path(e->path, e->pid, lib, err);
	if (!path)
		return NULL;
	for (unsigned i = 0; i < e->nobjs; i++)
		if (!strcmp(e->objs[i].path, path)) {
			free(path);
			return e->objs[i].bin;
		}
	if (e->nobjs == GP_MAX_OBJECTS) {
		free(path);
		cap_fail(err, EXIT_USAGE, "more than %d files probed", GP_MAX_OBJECTS);
		return NULL;
	}
	b = probe_open(path, err);
	if (!b) {
		free(path);
		return NULL;
	}
	e->objs[e->nobjs++] = (struct gp_object){ path, b, { -1, -1 } };
	return b;
}

unsigned gp_nobjects(const struct gp_engine *e)
{
	return e->nobjs;
}

struct probe_binary *gp_object_at(struct gp_engine *e, unsigned i)
{
	return i < e->nobjs ? e->objs[i].bin : NULL;
}

/* The index of @b among the objects. */
static unsigned object_index(struct gp_engine *e, struct probe_binary *b)
{
	unsigned i;

	for (i = 0; i < e->nobjs && e->objs[i].bin != b; i++)
		;
	return i;
}

void gp_set_pid(struct gp_engine *e, pid_t pid)
{
	e->pid = pid;
}

void gp_set_ring(struct gp_engine *e, unsigned long bytes, int hold)
{
	if (bytes)
		e->ring_bytes = bytes;
	e->hold_ring = hold;
}

void gp_set_stdin(struct gp_engine *e, int fd, int poll_ms)
{
	e->stdin_fd = fd;
	e->poll_ms = poll_ms;
}

void gp_follow(struct gp_engine *e)
{
	e->follow = 1;
}

void gp_number_goroutines(struct gp_engine *e)
{
	e->number_goroutines = 1;
}

/* Is @rd the goroutine's id (expr.c's goid: R14's g, then goid)? */
static int goid_read(const struct gp_engine *e, const struct gp_read *rd)
{
	return e->goid_off >= 0 && rd->src == GP_SRC_REG && rd->reg == GP_R14 &&
	       rd->nhops == 1 && rd->off[0] == e->goid_off;
}

static int add_site(struct gp_engine *e, struct probe_binary *b, const char *name,
		    const struct gp_site *s, unsigned func, unsigned kind, int uret,
		    struct cap_err *err)
{
	struct gp_plan *p;

	if (e->nsites == GP_MAX_SITES)
		return cap_fail(err, EXIT_USAGE, "more than %d probe sites", GP_MAX_SITES);
	p = &e->plans[e->nsites];
	if (gp_plan_site(s, name, p, err))
		return -1;
	p->func = func;
	p->kind = kind;
	p->uret = (unsigned)uret;
	/* a C library's code in a Go program runs on threads, not goroutines */
	p->goid_off = probe_abi(b) == PROBE_ABI_GO ? e->goid_off : -1;
	for (unsigned i = 0; i < s->nreads; i++)
		if ((s->reads[i].src == GP_SRC_REG && s->reads[i].reg == GP_TID) ||
		    s->reads[i].thread ||
		    (e->number_goroutines && goid_read(e, &s->reads[i])))
			e->tid_reads[e->nsites] |= 1u << i;
	memcpy(e->bits[e->nsites], s->reads, sizeof(s->reads));
	return (int)e->nsites++;
}

static int add_link(struct gp_engine *e, unsigned obj, unsigned long off, int site,
		    int ret, struct cap_err *err)
{
	if (e->nlinks == GP_MAX_LINKS)
		return cap_fail(err, EXIT_USAGE, "more than %d probe attachments", GP_MAX_LINKS);
	e->obj[e->nlinks] = (unsigned char)obj;
	e->offs[e->nlinks] = off;
	e->ret[e->nlinks] = (unsigned char)ret;
	e->cookie[e->nlinks++] = (unsigned)site;
	return 0;
}

/*
 * Where function @f of object @obj returns, for site @x: at every RET;
 * or, when a RET does not take each return of System V code
 * (binary.h), by the kernel's uretprobe at its first instruction,
 * which takes the return however the function leaves (a RET, or a jump
 * to another function that returns for it: a tail call).  Never a
 * uretprobe for Go: its runtime moves goroutine stacks, and the return
 * address the uretprobe replaces with them.
 */
static int add_returns(struct gp_engine *e, struct probe_binary *b, unsigned obj,
		       const char *name, const struct probe_func *f, int x,
		       struct cap_err *err)
{
	if (f->uretprobe)
		return add_link(e, obj, f->start, x, 1, err);
	if (probe_abi(b) == PROBE_ABI_GO && (f->tail_call || !f->nret))
		return cap_fail(err, EXIT_USAGE, "%s: no RET takes each of its returns", name);
	for (int i = 0; i < f->nret; i++)
		if (add_link(e, obj, f->ret[i], x, 0, err))
			return -1;
	return 0;
}

int gp_probe(struct gp_engine *e, const char *name, const struct gp_site *entry,
	     const struct gp_site *exit, struct cap_err *err)
{
	return gp_probe_in(e, e->bin, name, entry, exit, err);
}

int gp_probe_in(struct gp_engine *e, struct probe_binary *b, const char *name,
		const struct gp_site *entry, const struct gp_site *exit,
		struct cap_err *err)
{
	struct probe_func f;
	unsigned func = e->nfuncs++, obj = object_index(e, b);
	int id, x;

	if (obj == e->nobjs)
		return cap_fail(err, EXIT_USAGE, "%s: not a file of this engine", probe_path(b));
	if (probe_func(b, name, &f, err))
		return -1;
	id = add_site(e, b, name, entry, func, f.check ? GP_SITE_ENTRY_CHECK : GP_SITE_ENTRY,
		      exit && f.uretprobe, err);
	if (id < 0 || add_link(e, obj, f.check ? f.check : f.entry, id, 0, err))
		return -1;
	if (!exit)
		return id;
	if (!entry->nsaved)
		return cap_fail(err, EXIT_USAGE, "%s: an exit probe needs saved arguments", name);
	x = add_site(e, b, name, exit, func, GP_SITE_EXIT, f.uretprobe, err);
	return x < 0 || add_returns(e, b, obj, name, &f, x, err) ? -1 : id;
}

/*
 * A thread id as its index in its process, in the order records came (1,
 * 2, ...): ids differ from run to run, the order of a program that starts
 * its threads one after another does not.  0 stays 0 (not read).
 */
static int thread_index(struct gp_engine *e, unsigned pid,
			unsigned long long *tid)
{
	unsigned long long n = 0;

	if (!*tid)
		return 0;
	for (unsigned i = 0; i < e->nthreads; i++) {
		if (e->threads[i].pid != pid)
			continue;
		if (e->threads[i].tid == *tid) {
			*tid = e->threads[i].index;
			return 0;
		}
		n++;
	}
	if (e->nthreads == GP_MAX_THREADS)
		return cap_fail(e->err, EXIT_CAPTURE_FAILED,
				"more than %d threads%s", GP_MAX_THREADS,
				e->goid_off >= 0 ? " (goroutines numbered)" : "");
	e->threads[e->nthreads++] = (struct gp_thread){ pid, *tid, n + 1 };
	*tid = n + 1;
	return 0;
}

/* A C bit-field's bits of the unit read (goprobe.h), in place. */
static void take_bits(const struct gp_read *rd, unsigned long long *v)
{
	unsigned long long x = *v >> rd->bit_off;
	int drop = 64 - rd->bit_size;

	if (!rd->bit_size)
		return;
	x <<= drop;
	*v = rd->bit_signed ? (unsigned long long)((long long)x >> drop) : x >> drop;
}

/*
 * The values of a record as the program wrote it (goprobe.bpf.c): each
 * the 8 bytes at its read, whatever its size, its block nil or not, past
 * the site's reads whatever the ring held; the nil mask the blocks'.
 */
static void take_values(const struct gp_plan *p, struct gp_record *r)
{
	unsigned blocks = r->nil_mask, nil = 0;

	for (unsigned i = 0; i < GP_MAX_READS; i++) {
		const struct gp_value *v = &p->vals[i];

		if (i < p->nreads && v->block < GP_MAX_BLOCKS && (blocks & (1u << v->block)))
			nil |= 1u << i;
		if (i >= p->nreads || (nil & (1u << i)))
			r->val[i] = 0;
		else if (v->size < 8)
			r->val[i] &= (1ull << 8 * v->size) - 1;
	}
	r->nil_mask = nil;
}

/*
 * The record as the spec reads it: values masked, bit-fields' bits, and
 * thread ids as indices (no goroutines: goid_off -1; or numbered ones).
 */
static int as_read(struct gp_engine *e, struct gp_record *r)
{
	unsigned mask = r->site < e->nsites ? e->tid_reads[r->site] : 0;

	if (r->site == GP_SITE_EXEC)
		return 0;
	if (r->site < e->nsites)
		take_values(&e->plans[r->site], r);
	for (int i = 0; r->site < e->nsites && i < GP_MAX_READS; i++)
		take_bits(&e->bits[r->site][i], &r->val[i]);
	if (((r->site < e->nsites ? e->plans[r->site].goid_off : e->goid_off) < 0 ||
	     e->number_goroutines) && thread_index(e, r->pid, &r->goid))
		return -1;
	for (int i = 0; i < GP_MAX_READS; i++)
		if ((mask & (1u << i)) && thread_index(e, r->pid, &r->val[i]))
			return -1;
	return 0;
}

/* The ring's record at @data as a whole one in @r: values past its own 0. */
static int whole_record(struct gp_engine *e, const void *data, size_t len,
			struct gp_record *r)
{
	const struct gp_record *head = data;
	unsigned n = len < GP_REC_BYTES(0) ? 0 : head->site == GP_SITE_EXEC ? 0 :
		     head->site < e->nsites ? e->plans[head->site].nreads : GP_MAX_READS;

	if (len < GP_REC_BYTES(n) || len > sizeof(*r))
		return cap_fail(e->err, EXIT_CAPTURE_FAILED,
				"%s ring-buffer record (%zu bytes)",
				len > sizeof(*r) ? "long" : "short", len);
	memset(r, 0, sizeof(*r));
	memcpy(r, data, len);    /* the ring is mapped read-only */
	return 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct gp_engine *e = ctx;
	struct gp_record r;

	if (whole_record(e, data, len, &r)) {
		e->short_record = 1;
		return -1;
	}
	e->stats.records++;
	if (as_read(e, &r)) {
		e->short_record = 1;
		return -1;
	}
	e->fn(&r, e->arg);
	return 0;
}

/*
 * A ring-buffer poll or consume that returned @rc < 0: why, unless
 * on_event() said it (a short record).
 */
static int ring_error(struct gp_engine *e, int rc)
{
	if (e->short_record)
		return -1;
	return cap_fail(e->err, EXIT_CAPTURE_FAILED, "ring buffer: %s", strerror(-rc));
}

/*
 * Open and load the BPF object into e->skel: the verifier's work, most
 * of a capture's start (bench/probe-start), which depends on nothing the
 * spec resolves (the plans are written into its map after).
 */
static int load_program(struct gp_engine *e, struct cap_err *err)
{
	double begin = monotonic_seconds();
	int rc;

	if (gp_attach_path(&e->how, err))
		return -1;
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	e->skel = goprobe__open();
	if (!e->skel)
		return cap_fail(err, EXIT_ENV_MISSING, "cannot open the BPF object: %s",
				strerror(errno));
	/* The kernel takes a program for a multi link only if loaded for one. */
	if (e->how == GP_ATTACH_MULTI)
		bpf_program__set_expected_attach_type(e->skel->progs.goprobe,
				(enum bpf_attach_type)GP_TRACE_UPROBE_MULTI);
	e->skel->rodata->wakeup_bytes = e->ring_bytes / 4;
	e->skel->rodata->follow = (__u32)e->follow;
	bpf_map__set_max_entries(e->skel->maps.events, (__u32)e->ring_bytes);
	rc = goprobe__load(e->skel);
	phase_span("BPF loaded and verified", begin);
	if (rc && geteuid())
		return cap_fail(err, EXIT_ENV_MISSING,
				"cannot load the BPF program: %s (needs root, or CAP_BPF and CAP_PERFMON)",
				strerror(-rc));
	if (rc)
		return cap_fail(err, rc == -EPERM ? EXIT_ENV_MISSING : EXIT_CAPTURE_FAILED,
				"cannot load the BPF program: %s (the verifier's log is above)",
				strerror(-rc));
	return 0;
}

static void *preload_thread(void *arg)
{
	struct gp_engine *e = arg;

	e->preload_rc = load_program(e, &e->preload_err);
	return NULL;
}

/*
 * A failure while the thread loads (a spec refused) waits for it before
 * the process exits: an exit under libbpf's feet crashed it.
 */
static void join_preload(void *arg)
{
	struct gp_engine *e = arg;

	pthread_join(e->preloader, NULL);
}

void gp_preload(struct gp_engine *e)
{
	if (!e->preloading && !e->skel && !e->ran && !gp_may_probe(&e->preload_err) &&
	    !pthread_create(&e->preloader, NULL, preload_thread, e)) {
		e->preloading = 1;
		e->preload_cleanup = on_failure(join_preload, e);
	}
}

/* The preloading thread's result (its error into @err), once it is done. */
static int preloaded(struct gp_engine *e, struct cap_err *err)
{
	if (!e->preloading)
		return 1;
	cancel_on_failure(e->preload_cleanup);
	pthread_join(e->preloader, NULL);
	e->preloading = 0;
	if (e->preload_rc)
		*err = e->preload_err;
	return e->preload_rc;
}

/* The program loaded (by gp_preload()'s thread, or now) and the plans written. */
static int load(struct gp_engine *e)
{
	int pre = e->preloading ? preloaded(e, e->err) : 1;

	phase("the BPF load awaited");
	if (pre < 0 || (pre > 0 && load_program(e, e->err)))
		return -1;
	for (unsigned i = 0; i < e->nsites; i++)
		if (bpf_map__update_elem(e->skel->maps.sites, &i, sizeof(i),
					 &e->plans[i], sizeof(e->plans[i]), BPF_ANY))
			return cap_fail(e->err, EXIT_CAPTURE_FAILED,
					"cannot write probe site %u: %s", i, strerror(errno));
	return 0;
}

/* No permission is a missing environment; anything else fails the capture. */
static enum exit_code attach_failure(void)
{
	return errno == EPERM ? EXIT_ENV_MISSING : EXIT_CAPTURE_FAILED;
}

/*
 * A followed target is the process @pid and those it starts: the probes
 * are on every process of the binary and the program keeps to those in
 * its "procs" map, which the fork tracepoint extends; the exec
 * tracepoint announces each program a followed process runs.
 */
static int follow_target(struct gp_engine *e, pid_t pid)
{
	__u32 key = (__u32)pid, one = 1;

	if (bpf_map__update_elem(e->skel->maps.procs, &key, sizeof(key), &one,
				 sizeof(one), BPF_ANY))
		return cap_fail(e->err, EXIT_CAPTURE_FAILED, "cannot follow process %d: %s",
				pid, strerror(errno));
	e->fork_link = bpf_program__attach(e->skel->progs.gp_fork);
	e->exec_link = bpf_program__attach(e->skel->progs.gp_exec);
	if (!e->fork_link || !e->exec_link)
		return cap_fail(e->err, attach_failure(),
				"cannot attach to sched_process_fork and exec: %s",
				strerror(errno));
	return 0;
}

/*
 * Object @o's uprobes (@ret 0) or uretprobes (1) in one link, for @pid
 * alone unless followed (a link's probes are all one or the other).
 */
static int attach_multi_link(struct gp_engine *e, unsigned o, int ret, pid_t pid)
{
	unsigned long offs[GP_MAX_LINKS];
	unsigned long long cookie[GP_MAX_LINKS];
	struct gp_object *ob = &e->objs[o];
	unsigned n = 0;

	for (unsigned i = 0; i < e->nlinks; i++)
		if (e->obj[i] == o && e->ret[i] == ret) {
			offs[n] = e->offs[i];
			cookie[n++] = e->cookie[i];
		}
	if (!n)
		return 0;
	ob->multi_fd[ret] = gp_uprobe_multi_link(bpf_program__fd(e->skel->progs.goprobe),
						 ob->path, offs, cookie, n, e->follow ? 0 : pid,
						 ret ? GP_UPROBE_MULTI_RETURN : 0);
	if (ob->multi_fd[ret] < 0)
		return cap_fail(e->err, attach_failure(),
				"cannot attach %u %s to %s as one uprobe_multi link: %s%s",
				n, ret ? "uretprobes" : "uprobes", ob->path, strerror(errno),
				errno == EINVAL ? " (CAPTURE_UPROBE=perf attaches them one by one)" : "");
	return 0;
}

/*
 * Each object's sites in its links: a multi link is of one file.  The
 * libraries first, the binary last (and detached first): a call of the
 * binary probed finds its libraries' probes there already.
 */
static int attach_multi(struct gp_engine *e, pid_t pid)
{
	for (unsigned o = e->nobjs; o-- > 0;)
		for (int ret = 0; ret < 2; ret++)
			if (attach_multi_link(e, o, ret, pid))
				return -1;
	return 0;
}

static int attach(struct gp_engine *e, pid_t pid)
{
	if (e->follow && follow_target(e, pid))
		return -1;
	if (e->how == GP_ATTACH_MULTI)
		return attach_multi(e, pid);
	unsigned order[GP_MAX_LINKS];

	link_order(e, order);
	for (unsigned k = 0; k < e->nlinks; k++) {
		unsigned i = order[k];
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = e->cookie[i],
			    .retprobe = e->ret[i]);
		const char *path = e->objs[e->obj[i]].path;

		e->links[i] = bpf_program__attach_uprobe_opts(e->skel->progs.goprobe,
				e->follow ? -1 : pid, path, e->offs[i], &o);
		if (!e->links[i])
			return cap_fail(e->err, attach_failure(),
					"cannot attach a uprobe to %s at %#lx: %s",
					path, e->offs[i], strerror(errno));
	}
	return 0;
}

/*
 * The target, held on @hold until the probes are attached.  It dies with
 * capture (PR_SET_PDEATHSIG; a capture that died before the prctl has
 * left @parent already, to init or a subreaper), and closes its copy of the
 * pipe's write end so that a capture that fails before releasing it leaves
 * no target waiting.
 */
static _Noreturn void child(const int hold[2], const char *path,
			    char *const argv[], const char *out_path, int in,
			    pid_t parent)
{
	char c;

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	close(hold[1]);
	if (out_path) {
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (out < 0 || dup2(out, 1) < 0)
			_exit(127);
	}
	if ((in >= 0 && dup2(in, 0) < 0) || read(hold[0], &c, 1) != 1)
		_exit(127);
	execv(path, argv);
	_exit(127);
}

/* The records the probes sent: each CPU's, and the exec records. */
static unsigned long long records_sent(struct gp_engine *e, unsigned long long execs)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 *n = xcalloc(ncpus > 0 ? (size_t)ncpus : 1, sizeof(*n));
	unsigned long long sum = execs;
	__u32 zero = 0;

	if (ncpus > 0 && !bpf_map__lookup_elem(e->skel->maps.sent, &zero, sizeof(zero), n,
					       (size_t)ncpus * sizeof(*n), 0))
		for (int i = 0; i < ncpus; i++)
			sum += n[i];
	free(n);
	return sum;
}

static void read_stats(struct gp_engine *e)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	__u64 v[GP_NSTATS] = { 0 };

	for (__u32 i = 0; i < GP_NSTATS; i++)
		bpf_map__lookup_elem(e->skel->maps.stats, &i, sizeof(i), &v[i],
				     sizeof(v[i]), 0);
	e->stats.sent = records_sent(e, v[GP_STAT_EXECS]);
	e->stats.drops = v[GP_STAT_DROPS];
	e->stats.unmatched_exits = v[GP_STAT_UNMATCHED_EXITS];
	e->stats.depth_overflow = v[GP_STAT_DEPTH];
	e->stats.skipped_morestack = v[GP_STAT_SKIPPED_MORESTACK];
	e->stats.busy = v[GP_STAT_BUSY];
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(e->skel->progs.goprobe),
				    &info, &len)) {
		e->stats.prog_runs = info.run_cnt;
		e->stats.prog_ns = info.run_time_ns;
	}
}

/*
 * Consume records until the child exits (its wait status into *@status),
 * or the timeout passes.  The probes wake the consumer only when the ring
 * is a quarter full (goprobe.bpf.c), so each poll's timeout drains what
 * is below that; the last records are drained after the detach
 * (gp_run()).
 */
static int follow_child(struct gp_engine *e, struct ring_buffer *rb, pid_t pid,
			double timeout_s, int *status)
{
	double end = monotonic_seconds() + timeout_s;
	pid_t w;
	int rc;

	for (;;) {
		rc = e->hold_ring ? usleep(50000) : ring_buffer__poll(rb, e->poll_ms);
		if (rc >= 0 && !e->hold_ring)
			rc = ring_buffer__consume(rb);
		w = waitpid(pid, status, WNOHANG);
		if (rc < 0 && rc != -EINTR)
			return ring_error(e, rc);
		if (w == pid)
			break;
		if (timeout_s > 0 && monotonic_seconds() > end)
			return cap_fail(e->err, EXIT_CAPTURE_FAILED, "%s: timed out after %.0f s",
					e->path, timeout_s);
	}
	return 0;
}

/*
 * Any record lost fails the capture; of a running process, a return
 * whose entry came before the probes were attached (a call open then)
 * is no loss.
 */
static int check_losses(struct gp_engine *e)
{
	read_stats(e);
	if (e->stats.drops || (e->stats.unmatched_exits && !e->pid) || e->stats.depth_overflow ||
	    e->stats.busy || e->stats.records != e->stats.sent)
		return cap_fail(e->err, EXIT_CAPTURE_FAILED,
				"%s: lost events: %llu ring-buffer drops (ring full), %llu exits without entry, %llu frames not saved, %llu probes preempted by another; %llu records received of %llu sent",
				e->path, e->stats.drops, e->stats.unmatched_exits,
				e->stats.depth_overflow, e->stats.busy, e->stats.records,
				e->stats.sent);
	return 0;
}

/* The target's process group, killed if capture dies while it runs. */
static pid_t target;

static void kill_target(void *arg)
{
	pid_t pid = *(pid_t *)arg;

	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Attach the probes to the held target @pid, then let it go on @hold. */
static int release(struct gp_engine *e, pid_t pid, int hold)
{
	int rc = attach(e, pid);

	phase("attached");
	if (!rc && write(hold, "g", 1) != 1)
		rc = cap_fail(e->err, EXIT_CAPTURE_FAILED, "cannot release %s: %s",
			      e->path, strerror(errno));
	if (!rc)
		phases_report("the target released");
	close(hold);
	return rc;
}

/*
 * While the target runs, the consumer is a real-time thread (if capture
 * may make it one: it runs as root for BPF): woken at the ring's mark it
 * runs at once, however busy the machine, so that a 1 MiB ring, whose
 * lines stay in the CPU's cache where a 16 MiB one's are cold a lap
 * later (~50 ns a record, bench/ebpf-overhead-rust), never fills.  It
 * sleeps in its poll between drains; the target, forked before, and
 * what capture starts after keep the ordinary policy.
 */
static void consumer_first(int on)
{
	struct sched_param sp = { .sched_priority = on };

	sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* A run that failed once its target started: nothing of its output stays. */
static int run_failed(const char *out_path)
{
	if (out_path)
		unlink(out_path);
	return -1;
}

/*
 * Start the target held on a pipe, attach, release it and follow it to
 * its end (its wait status into *@status).  If that fails, the target's
 * process group is killed and reaped and its output removed.
 */
static int run_target(struct gp_engine *e, struct ring_buffer *rb,
		      char *const argv[], const char *out_path,
		      double timeout_s, int *status)
{
	int hold[2], cleanup, rc;
	pid_t pid, parent = getpid();

	if (pipe2(hold, O_CLOEXEC))
		return cap_fail(e->err, EXIT_CAPTURE_FAILED, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(hold[0]);
		close(hold[1]);
		return cap_fail(e->err, EXIT_CAPTURE_FAILED, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		child(hold, e->path, argv, out_path, e->stdin_fd, parent);
	setpgid(pid, pid);
	target = pid;
	cleanup = on_failure(kill_target, &target);
	close(hold[0]);
	rc = release(e, pid, hold[1]);
	if (!rc) {
		consumer_first(1);
		rc = follow_child(e, rb, pid, timeout_s, status);
		consumer_first(0);
	}
	if (rc)
		kill_target(&target);
	cancel_on_failure(cleanup);
	return rc ? run_failed(out_path) : 0;
}

/* Has the process of @pidfd exited?  (A pidfd polls readable then.) */
static int exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * Probe the running process e->pid (no ptrace, no signal: the links'
 * pid filter) until it exits, @seconds pass (0: never) or a SIGINT.
 */
static int run_attached(struct gp_engine *e, struct ring_buffer *rb, double seconds)
{
	atomic_int stop = 0;
	int pidfd = (int)syscall(SYS_pidfd_open, e->pid, 0), rc;
	double end = monotonic_seconds() + seconds;

	if (pidfd < 0)
		return cap_fail(e->err, EXIT_BAD_INPUT, "process %d: %s", (int)e->pid,
				strerror(errno));
	interrupt_stops(&stop);
	rc = attach(e, e->pid);
	phase("attached");
	if (!rc)
		phases_report("the probes armed");
	if (!rc)
		progress("probing process %d: until it exits%s, or SIGINT", (int)e->pid,
			 seconds > 0 ? ", --seconds pass" : "");
	consumer_first(1);
	while (!rc && !exited(pidfd) && !atomic_load(&stop) &&
	       (seconds <= 0 || monotonic_seconds() < end)) {
		rc = ring_buffer__poll(rb, e->poll_ms);
		if (rc >= 0)
			rc = ring_buffer__consume(rb);
		rc = rc < 0 && rc != -EINTR ? ring_error(e, rc) : 0;
	}
	consumer_first(0);
	interrupt_stops(NULL);
	close(pidfd);
	return rc;
}

int gp_run(struct gp_engine *e, char *const argv[], const char *out_path,
	   double timeout_s, gp_record_fn fn, void *arg, struct cap_err *err)
{
	struct ring_buffer *rb;
	int status, rc;

	if (e->ran++)
		return cap_fail(err, EXIT_USAGE, "%s: an engine runs its target once",
				e->path);
	e->err = err;
	e->fn = fn;
	e->arg = arg;
	memset(&e->stats, 0, sizeof(e->stats));
	if (load(e))
		return -1;
	rb = ring_buffer__new(bpf_map__fd(e->skel->maps.events), on_event, e, NULL);
	if (!rb)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "cannot open the ring buffer: %s",
				strerror(errno));
	status = 0;
	rc = e->pid > 0 ? run_attached(e, rb, timeout_s) :
	     run_target(e, rb, argv, out_path, timeout_s, &status);
	detach(e);
	/* Detached, no probe runs any more: what the ring holds is all. */
	if (!rc && (rc = ring_buffer__consume(rb)) < 0)
		ring_error(e, rc);
	ring_buffer__free(rb);
	if (rc < 0)
		return run_failed(out_path);
	if (check_losses(e))
		return run_failed(out_path);
	if (WIFSIGNALED(status)) {
		cap_fail(err, EXIT_CAPTURE_FAILED, "%s killed by signal %d", e->path,
			 WTERMSIG(status));
		return run_failed(out_path);
	}
	return WEXITSTATUS(status);
}

const struct gp_stats *gp_stats(struct gp_engine *e)
{
	return &e->stats;
}
