// SPDX-License-Identifier: MIT
/* The rwlock guest's trace channel, decoded (see rwlock-ftrace.h). */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../trace-fields.h"
#include "rwlock-ftrace.h"
#include "rwlock-ops.h"

/* include/trace/events/lock.h's contention_begin flags. */
#define LCB_F_READ (1U << 1)
#define LCB_F_WRITE (1U << 2)

struct op {
	int actor, op, ret, ok;
	int begun, ended;	/* a call's contention_begin and _end */
	int waited;		/* a return whose call waited */
};

struct decode {
	const char *path;
	const struct ftrace *t;
	const struct ftrace_record *begin, *end;
	unsigned long long lock;	/* the scenario's lock: never written out */
	size_t nops;
	struct op *ops;
	long long contention_begin, contention_end;
};

static void take_op(struct decode *d, size_t seq, const struct ftrace_record *r)
{
	struct op *o = &d->ops[seq];

	if (seq == 0)
		d->lock = trace_num(d->t, r, "lock");
	o->actor = (int)trace_num(d->t, r, "actor");
	o->op = (int)trace_num(d->t, r, "op");
	o->ret = (int)trace_num(d->t, r, "ret");
	o->ok = (int)trace_num(d->t, r, "ok");
	if (o->op >= N_OPS || o->actor > 1)
		die_at(EXIT_BAD_INPUT, d->path, 0, "rwlock_op seq %zu: op %d, actor %d",
		       seq, o->op, o->actor);
}

/* The framing events, then every operation by seq: 0 .. nevents-1, each once. */
static void collect_ops(struct decode *d)
{
	const struct ftrace_record **by_seq;

	by_seq = trace_ops(d->t, "capture_rwlock", "rwlock", &d->begin, &d->end, &d->nops);
	d->ops = xcalloc(d->nops ? d->nops : 1, sizeof(*d->ops));
	for (size_t s = 0; s < d->nops; s++)
		take_op(d, s, by_seq[s]);
	free(by_seq);
}

static _Noreturn void unexplained(const struct decode *d, int cpu, const char *what)
{
	die_at(EXIT_CHECK_FAILED, d->path, 0,
	       "cpu%d: lock:%s of the scenario's lock", cpu, what);
}

/* lock:contention_begin/end of the lock, inside the call @call (or -1). */
static void contention(struct decode *d, int cpu, long long call,
		       const struct ftrace_record *r, int begin)
{
	struct op *o = call >= 0 ? &d->ops[call] : NULL;
	unsigned long long flags;

	if (!o)
		unexplained(d, cpu, begin ? "contention_begin outside a lock() call"
				    : "contention_end outside a lock() call");
	if (begin) {
		flags = trace_num(d->t, r, "flags");
		if (o->begun || !(flags & (o->op == WRITE_LOCK ? LCB_F_WRITE : LCB_F_READ)))
			unexplained(d, cpu, "contention_begin twice or of the wrong kind");
		o->begun = 1;
		d->contention_begin++;
	} else {
		if (!o->begun || o->ended)
			unexplained(d, cpu, "contention_end without its contention_begin");
		o->ended = 1;
		d->contention_end++;
	}
}

/* One CPU's records in its buffer's (time) order: contention within calls. */
static void walk_cpu(struct decode *d, int cpu)
{
	long long call = -1;
	size_t n;
	const struct ftrace_record *r = ftrace_records(d->t, cpu, &n);

	for (size_t i = 0; i < n; i++) {
		if (ftrace_is_event(&r[i], "capture_rwlock", "rwlock_op")) {
			unsigned long long seq = trace_num(d->t, &r[i], "seq");
			struct op *o = &d->ops[seq];

			if (!o->ret && (o->op == READ_LOCK || o->op == WRITE_LOCK)) {
				call = (long long)seq;
			} else if (o->ret && call >= 0) {
				if (d->ops[call].begun != d->ops[call].ended)
					unexplained(d, cpu, "contention_begin never ended");
				o->waited = d->ops[call].ended;
				call = -1;
			}
		} else if ((ftrace_is_event(&r[i], "lock", "contention_begin") ||
			    ftrace_is_event(&r[i], "lock", "contention_end")) &&
			   trace_num(d->t, &r[i], "lock_addr") == d->lock) {
			contention(d, cpu, call, &r[i], !strcmp(r[i].name, "contention_begin"));
		}
	}
}

static void event_line(struct strbuf *sb, size_t seq, const struct op *o,
		       const char *event)
{
	strbuf_addf(sb, "{\"seq\":%zu,\"thread\":%d,\"op\":\"%s\",\"event\":\"%s\"",
		    seq, o->actor, rwlock_op_names[o->op], event);
	if (!strcmp(event, "return"))
		strbuf_addf(sb, ",\"ok\":%s", o->ok ? "true" : "false");
	strbuf_addstr(sb, "}\n");
}

/* The stream with the contention lines (@full) and without (@plain). */
static void write_streams(const struct decode *d, const char *name,
			  struct strbuf *full, struct strbuf *plain)
{
	size_t k = 0;

	strbuf_addf(full, "CAPTURE BEGIN %s\n", name);
	strbuf_addf(plain, "CAPTURE BEGIN %s\n", name);
	for (size_t s = 0; s < d->nops; s++) {
		const struct op *o = &d->ops[s];
		const char *event = o->ret ? "return" : "call";

		if (o->waited)
			event_line(full, k++, o, "contention_end");
		event_line(full, k++, o, event);
		if (o->begun)
			event_line(full, k++, o, "contention_begin");
		event_line(plain, s, o, event);
	}
	strbuf_addf(full, "CAPTURE END %zu\n", k);
	strbuf_addf(plain, "CAPTURE END %zu\n", d->nops);
}

void rwlock_trace_decode(const char *trace, const char *json, const char *out,
			 cJSON *info)
{
	struct cap_err err;
	struct ftrace *t = ftrace_open(trace, &err);
	struct decode d = { .path = trace, .t = t };
	struct strbuf full = STRBUF_INIT, plain = STRBUF_INIT;
	char *name;

	if (!t)
		die_err(&err);
	collect_ops(&d);
	for (int c = 0; c < ftrace_cpus(t); c++)
		walk_cpu(&d, c);
	name = trace_str(t, d.begin, "name");
	write_streams(&d, name, &full, &plain);
	if (json && ftrace_cross_check(trace, json, plain.buf, plain.len, &err))
		die_err(&err);
	write_file(out, full.buf, full.len);
	json_add(info, "cpus", json_int((long long)trace_num(t, d.begin, "cpus")));
	json_add(info, "contention_begin", json_int(d.contention_begin));
	json_add(info, "contention_end", json_int(d.contention_end));
	strbuf_release(&full);
	strbuf_release(&plain);
	free(name);
	free(d.ops);
	ftrace_close(t);
}
