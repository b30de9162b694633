// SPDX-License-Identifier: MIT
/* The spin guest's trace channel, decoded (see trace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../trace-fields.h"
#include "spin-ftrace.h"

/* module/spin.c's enum action, by value. */
enum { TRY_ACQUIRE_BLOCKING, TRY_ACQUIRE_NON_BLOCKING, ACQUIRE_SUCCESS,
       ACQUIRE_FAIL, RELEASE, N_ACTIONS };

static const char *const action_names[N_ACTIONS] = {
	"TryAcquireBlocking", "TryAcquireNonBlocking", "AcquireSuccess",
	"AcquireFail", "Release",
};

struct op {
	int actor, action, locked, spun;
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

static void take_op(struct decode *d, size_t seq, const struct ftrace_record *r)
{
	struct op *o = &d->ops[seq];

	if (seq == 0)
		d->lock = trace_num(d->t, r, "lock");
	o->actor = (int)trace_num(d->t, r, "actor");
	o->action = (int)trace_num(d->t, r, "action");
	o->locked = (int)trace_num(d->t, r, "locked");
	if (o->action >= N_ACTIONS)
		die_at(EXIT_BAD_INPUT, d->path, 0, "spin_op seq %zu: action %d",
		       seq, o->action);
}

/* The framing events, then every operation by seq: 0 .. nevents-1, each once. */
static void collect_ops(struct decode *d)
{
	const struct ftrace_record **by_seq;

	by_seq = trace_ops(d->t, "capture_spin", "spin", &d->begin, &d->end, &d->nops);
	d->ops = xcalloc(d->nops ? d->nops : 1, sizeof(*d->ops));
	for (size_t s = 0; s < d->nops; s++)
		take_op(d, s, by_seq[s]);
	free(by_seq);
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
	if (trace_num(d->t, r, "lock") != d->lock)
		unexplained(d, cpu, "was reported for another lock");
	if (!trace_num(d->t, r, "exit")) {
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
	return trace_num(d->t, r, "lock_addr") == d->lock;
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
		if (ftrace_is_event(&r[i], "capture_spin", "spin_slowpath")) {
			slowpath(d, &w, cpu, &r[i]);
		} else if (ftrace_is_event(&r[i], "capture_spin", "spin_op")) {
			unsigned long long seq = trace_num(d->t, &r[i], "seq");
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
		} else if (ftrace_is_event(&r[i], "lock", "contention_begin")) {
			d->contention_begin += ours(d, &r[i]);
		} else if (ftrace_is_event(&r[i], "lock", "contention_end")) {
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

static void describe(const struct decode *d, long long stops, cJSON *info)
{
	json_add(info, "cpus", json_int((long long)trace_num(d->t, d->begin, "cpus")));
	json_add(info, "hypervisor",
		 json_bool((int)trace_num(d->t, d->begin, "hypervisor")));
	json_add(info, "paravirt_slowpath",
		 json_bool((int)trace_num(d->t, d->begin, "pv_slowpath")));
	json_add(info, "slowpath_entries", json_int(d->entries));
	json_add(info, "slowpath_exits", json_int(d->exits));
	json_add(info, "stop_spinning", json_int(stops));
	json_add(info, "spinning_at_end", json_int(d->spinning_at_end));
	json_add(info, "contention_begin", json_int(d->contention_begin));
	json_add(info, "contention_end", json_int(d->contention_end));
}

void spin_trace_decode(const char *trace, const char *json, const char *out,
		       cJSON *info)
{
	struct cap_err err;
	struct ftrace *t = ftrace_open(trace, &err);
	struct decode d = { .path = trace, .t = t };
	struct strbuf full = STRBUF_INIT, plain = STRBUF_INIT;
	long long stops = 0;
	char *name;

	if (!t)
		die_err(&err);
	collect_ops(&d);
	for (int c = 0; c < ftrace_cpus(t); c++)
		walk_cpu(&d, c);
	for (size_t s = 0; s < d.nops; s++)
		stops += d.ops[s].spun;
	name = trace_str(t, d.begin, "name");
	write_streams(&d, name, &full, &plain);
	if (json && ftrace_cross_check(trace, json, plain.buf, plain.len, &err))
		die_err(&err);
	write_file(out, full.buf, full.len);
	describe(&d, stops, info);
	strbuf_release(&full);
	strbuf_release(&plain);
	free(name);
	free(d.ops);
	ftrace_close(t);
}
