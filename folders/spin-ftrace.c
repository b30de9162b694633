// SPDX-License-Identifier: MIT
/* The spin guest's trace channel, decoded (see trace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "../qemu/ftrace.h"
#include "spin-ftrace.h"

/* module/spin.c's enum action, by value. */
enum { TRY_ACQUIRE_BLOCKING, TRY_ACQUIRE_NON_BLOCKING, ACQUIRE_SUCCESS,
       ACQUIRE_FAIL, RELEASE, N_ACTIONS };

static const char *const action_names[N_ACTIONS] = {
	"TryAcquireBlocking", "TryAcquireNonBlocking", "AcquireSuccess",
	"AcquireFail", "Release",
};

struct op {
	int present, actor, action, locked, spun;
};

struct decode {
	const char *path;
	const struct ftrace *t;
	const struct ftrace_record *begin, *end;
	unsigned long long lock;	/* the scenario's lock: never written out */
	size_t nops;
	struct op *ops;
	long long entries, exits, contention_begin, contention_end;
	long long spinning_at_end;	/* lock()s still in the slow path */
};

static int is(const struct ftrace_record *r, const char *sys, const char *name)
{
	return !strcmp(r->system, sys) && !strcmp(r->name, name);
}

/* The run's framing events: exactly one spin_begin and one spin_end. */
static void find_markers(struct decode *d)
{
	for (int c = 0; c < ftrace_cpus(d->t); c++) {
		size_t n;
		const struct ftrace_record *r = ftrace_records(d->t, c, &n);

		for (size_t i = 0; i < n; i++) {
			const struct ftrace_record **m =
				is(&r[i], "capture_spin", "spin_begin") ? &d->begin :
				is(&r[i], "capture_spin", "spin_end") ? &d->end : NULL;

			if (m && *m)
				die_at(EXIT_CHECK_FAILED, d->path, 0,
				       "two capture_spin:%s events", r[i].name);
			if (m)
				*m = &r[i];
		}
	}
	if (!d->begin || !d->end)
		die_at(EXIT_CAPTURE_FAILED, d->path, 0,
		       "no capture_spin:%s event in the trace: events were lost",
		       d->begin ? "spin_end" : "spin_begin");
}

static void take_op(struct decode *d, const struct ftrace_record *r)
{
	unsigned long long seq = ftrace_num(d->t, r, "seq");
	unsigned long long lock = ftrace_num(d->t, r, "lock");
	struct op *o;

	if (seq >= d->nops)
		die_at(EXIT_CHECK_FAILED, d->path, 0,
		       "spin_op seq %llu after spin_end counted %zu", seq, d->nops);
	o = &d->ops[seq];
	if (o->present)
		die_at(EXIT_CHECK_FAILED, d->path, 0, "two spin_op events of seq %llu", seq);
	if (seq == 0)
		d->lock = lock;
	o->present = 1;
	o->actor = (int)ftrace_num(d->t, r, "actor");
	o->action = (int)ftrace_num(d->t, r, "action");
	o->locked = (int)ftrace_num(d->t, r, "locked");
	if (o->action >= N_ACTIONS)
		die_at(EXIT_BAD_INPUT, d->path, 0, "spin_op seq %llu: action %d",
		       seq, o->action);
}

static _Noreturn void lost_ops(const struct decode *d, size_t lost)
{
	die_at(EXIT_CAPTURE_FAILED, d->path, 0,
	       "spin_end counted %zu events, %zu of them are not in the trace: "
	       "events were lost", d->nops, lost);
}

/* Every operation, by seq: all of 0 .. nevents-1, each once. */
static void collect_ops(struct decode *d)
{
	size_t lost = 0, ops = 0, n;

	for (int c = 0; c < ftrace_cpus(d->t); c++) {
		const struct ftrace_record *r = ftrace_records(d->t, c, &n);

		for (size_t i = 0; i < n; i++)
			ops += is(&r[i], "capture_spin", "spin_op");
	}
	d->nops = ftrace_num(d->t, d->end, "nevents");
	/* a count beyond the records there are gets no table of its size */
	if (d->nops > ops)
		lost_ops(d, d->nops - ops);
	d->ops = xcalloc(d->nops ? d->nops : 1, sizeof(*d->ops));
	for (int c = 0; c < ftrace_cpus(d->t); c++) {
		size_t n;
		const struct ftrace_record *r = ftrace_records(d->t, c, &n);

		for (size_t i = 0; i < n; i++)
			if (is(&r[i], "capture_spin", "spin_op"))
				take_op(d, &r[i]);
	}
	for (size_t s = 0; s < d->nops; s++)
		lost += !d->ops[s].present;
	if (lost)
		lost_ops(d, lost);
}

/* Where each CPU's lock() is: its TryAcquireBlocking, then the slow path. */
struct cpu_walk {
	long long pending;	/* seq of the TryAcquireBlocking, -1: none */
	int in_slowpath, spun;
};

static _Noreturn void unexplained(const struct decode *d, int cpu, const char *what)
{
	die_at(EXIT_CHECK_FAILED, d->path, 0,
	       "cpu%d: the slow path of the scenario's lock %s", cpu, what);
}

static void slowpath(struct decode *d, struct cpu_walk *w, int cpu,
		     const struct ftrace_record *r)
{
	if (ftrace_num(d->t, r, "lock") != d->lock)
		unexplained(d, cpu, "was reported for another lock");
	if (!ftrace_num(d->t, r, "exit")) {
		if (w->pending < 0 || w->in_slowpath || w->spun)
			unexplained(d, cpu, "was entered outside a lock()");
		w->in_slowpath = 1;
		d->entries++;
	} else {
		if (!w->in_slowpath)
			unexplained(d, cpu, "returned without being entered");
		w->in_slowpath = 0;
		w->spun = 1;
		d->exits++;
	}
}

/*
 * A lock() that began on a held lock must have spun: the module holds the
 * release until the kretprobe has seen the waiter in the slow path.
 */
static _Noreturn void no_evidence(const struct decode *d, int cpu, long long seq)
{
	die_at(EXIT_CAPTURE_FAILED, d->path, 0,
	       "cpu%d: the lock() of seq %lld began on a held lock, but the "
	       "kretprobe on native_queued_spin_lock_slowpath saw no slow path: "
	       "the kprobe evidence is missing", cpu, seq);
}

/* Is the lock:contention_* record @r about the scenario's lock? */
static int ours(const struct decode *d, const struct ftrace_record *r)
{
	return ftrace_num(d->t, r, "lock_addr") == d->lock;
}

/*
 * A lock() of this CPU had not returned at spin_end: a self-deadlock the
 * run ended on (the module allows it only as the last step, and stops
 * tracing before it frees the lock).  It must be the run's last operation,
 * begun on a held lock, and still in the slow path: the evidence that it
 * spins.  Whether its caller held the lock is the folder's check.
 */
static void still_spinning(struct decode *d, const struct cpu_walk *w, int cpu)
{
	if ((size_t)w->pending + 1 != d->nops || !d->ops[w->pending].locked)
		die_at(EXIT_CHECK_FAILED, d->path, 0,
		       "cpu%d: the lock() of seq %lld never returned, and it is "
		       "not the run's last operation, begun on a held lock",
		       cpu, w->pending);
	if (!w->in_slowpath)
		no_evidence(d, cpu, w->pending);
	d->spinning_at_end++;
}

/* The ops of one CPU in its buffer's order, with the slow path between. */
static void walk_cpu(struct decode *d, int cpu)
{
	struct cpu_walk w = { .pending = -1 };
	size_t n;
	const struct ftrace_record *r = ftrace_records(d->t, cpu, &n);

	for (size_t i = 0; i < n; i++) {
		if (is(&r[i], "capture_spin", "spin_slowpath")) {
			slowpath(d, &w, cpu, &r[i]);
		} else if (is(&r[i], "capture_spin", "spin_op")) {
			unsigned long long seq = ftrace_num(d->t, &r[i], "seq");
			struct op *o = &d->ops[seq];

			if (o->action == TRY_ACQUIRE_BLOCKING) {
				w = (struct cpu_walk){ .pending = (long long)seq };
			} else if (o->action == ACQUIRE_SUCCESS && w.pending >= 0) {
				if (w.in_slowpath)
					unexplained(d, cpu, "was never left");
				if (d->ops[w.pending].locked && !w.spun)
					no_evidence(d, cpu, w.pending);
				o->spun = w.spun;
				w = (struct cpu_walk){ .pending = -1 };
			}
		} else if (is(&r[i], "lock", "contention_begin")) {
			d->contention_begin += ours(d, &r[i]);
		} else if (is(&r[i], "lock", "contention_end")) {
			d->contention_end += ours(d, &r[i]);
		}
	}
	if (w.pending >= 0)
		still_spinning(d, &w, cpu);
}

static void event_line(struct strbuf *sb, size_t seq, const struct op *o,
		       const char *action, int locked)
{
	strbuf_addf(sb, "{\"seq\":%zu,\"thread\":%d,\"lock\":0,\"state\":\"%s\","
		    "\"action\":\"%s\",\"actor\":%d}\n", seq, o->actor,
		    locked ? "locked" : "unlocked", action, o->actor);
}

/*
 * The stream with StopSpinning (@full) and without (@plain, the JSON
 * channel's bytes).  StopSpinning's state is the lock once the spin ended:
 * held by the spinner, whose AcquireSuccess follows.
 */
static void write_streams(const struct decode *d, const char *name,
			  struct strbuf *full, struct strbuf *plain)
{
	size_t k = 0;

	strbuf_addf(full, "CAPTURE BEGIN %s\n", name);
	strbuf_addf(plain, "CAPTURE BEGIN %s\n", name);
	for (size_t s = 0; s < d->nops; s++) {
		const struct op *o = &d->ops[s];

		if (o->spun)
			event_line(full, k++, o, "StopSpinning", 1);
		event_line(full, k++, o, action_names[o->action], o->locked);
		event_line(plain, s, o, action_names[o->action], o->locked);
	}
	strbuf_addf(full, "CAPTURE END %zu\n", k);
	strbuf_addf(plain, "CAPTURE END %zu\n", d->nops);
}

/* The JSON channel must say what the trace says, byte for byte. */
static void cross_check(const struct decode *d, const char *json,
			const struct strbuf *plain)
{
	size_t len, i, line = 1;
	char *text = read_file(json, &len);

	if (!text)
		die_at(EXIT_CAPTURE_FAILED, json, 0, "cannot read the JSON channel");
	for (i = 0; i < len && i < plain->len && text[i] == plain->buf[i]; i++)
		line += text[i] == '\n';
	if (i < len || i < plain->len)
		die_at(EXIT_CAPTURE_FAILED, json, (long)line,
		       "the JSON channel and the trace channel (%s) disagree",
		       d->path);
	free(text);
}

static void describe(const struct decode *d, long long stops, cJSON *info)
{
	json_add(info, "cpus", json_int((long long)ftrace_num(d->t, d->begin, "cpus")));
	json_add(info, "hypervisor",
		 json_bool((int)ftrace_num(d->t, d->begin, "hypervisor")));
	json_add(info, "paravirt_slowpath",
		 json_bool((int)ftrace_num(d->t, d->begin, "pv_slowpath")));
	json_add(info, "slowpath_entries", json_int(d->entries));
	json_add(info, "slowpath_exits", json_int(d->exits));
	json_add(info, "stop_spinning", json_int(stops));
	json_add(info, "spinning_at_end", json_int(d->spinning_at_end));
	json_add(info, "contention_begin", json_int(d->contention_begin));
	json_add(info, "contention_end", json_int(d->contention_end));
}

int spin_ftrace_is(const char *path)
{
	static const char magic[] = "CAPTURE TRACE\n";
	char head[sizeof(magic) - 1];
	FILE *f = fopen(path, "rb");
	int is = f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		 !memcmp(head, magic, sizeof(head));

	if (f)
		fclose(f);
	return is;
}

void spin_trace_decode(const char *trace, const char *json, const char *out,
		       cJSON *info)
{
	struct ftrace *t = ftrace_open(trace);
	struct decode d = { .path = trace, .t = t };
	struct strbuf full = STRBUF_INIT, plain = STRBUF_INIT;
	long long stops = 0;
	char *name;

	find_markers(&d);
	collect_ops(&d);
	for (int c = 0; c < ftrace_cpus(t); c++)
		walk_cpu(&d, c);
	for (size_t s = 0; s < d.nops; s++)
		stops += d.ops[s].spun;
	name = ftrace_str(t, d.begin, "name");
	write_streams(&d, name, &full, &plain);
	if (json)
		cross_check(&d, json, &plain);
	write_file(out, full.buf, full.len);
	describe(&d, stops, info);
	strbuf_release(&full);
	strbuf_release(&plain);
	free(name);
	free(d.ops);
	ftrace_close(t);
}
