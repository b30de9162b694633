// SPDX-License-Identifier: MIT
/*
 * rwlock: the kernel's rwlock_t (the queued rwlock) under two actors.
 *
 * Raw stream (capture rwlock's raw/RUN.log, decoded from the guest's
 * trace channel; a kept raw/RUN.ftrace is decoded first, rwlock-ftrace.h),
 * read by the serial channel's reader (serial.h), one event a line:
 *   CAPTURE BEGIN <scenario>
 *   {"seq":N,"thread":T,"op":OP,"event":"call"}
 *   {"seq":N,"thread":T,"op":OP,"event":"contention_begin"}
 *   {"seq":N,"thread":T,"op":OP,"event":"contention_end"}
 *   {"seq":N,"thread":T,"op":OP,"event":"return","ok":true|false}
 *   CAPTURE END <number of events>
 * OP is read_lock, read_trylock, read_unlock, write_lock, write_trylock or
 * write_unlock; ok is what a trylock returned (true for the others);
 * contention_begin/end are the kernel's lock:contention_* of this lock,
 * between the waiting call and its return.
 *
 * Observable state {readers: sorted set of threads, writer: thread or
 * null}; one window per return: ReadLock, ReadTryLock, ReadUnlock,
 * WriteLock, WriteTryLock, WriteUnlock {thread} (a failed trylock is a
 * window whose post equals its pre).
 *
 * Checks: every return follows its call; a lock returns only on a lock it
 * can take (no writer; for a write_lock no reader either) and a read lock
 * is not recursive (the state is a set); a trylock fails only on a lock
 * held against it or with a lock() under way (the queued rwlock makes new
 * readers wait behind a waiting writer); an unlock only by a holder; a
 * lock() that found the lock held against it shows the kernel's
 * contention_begin and contention_end, one of each.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/ndjson.h"
#include "../../capture/fold.h"
#include "rwlock-ftrace.h"
#include "../../capture/readers/serial.h"
#include "../trace-fields.h"

extern const struct audit_domain rwlock_audit;

#define THREADS 2
#define NO_ONE (-1)

enum op { READ_LOCK, READ_TRYLOCK, READ_UNLOCK, WRITE_LOCK, WRITE_TRYLOCK,
	  WRITE_UNLOCK, N_OPS };
enum event { CALL, CONTENTION_BEGIN, CONTENTION_END, RETURN, N_EVENTS };

const char *const rwlock_op_names[N_OPS + 1] = {
	"read_lock", "read_trylock", "read_unlock",
	"write_lock", "write_trylock", "write_unlock", NULL,
};
/* The windows' actions, by op (NULL-terminated for struct folder). */
static const char *const rwlock_actions[N_OPS + 1] = {
	"ReadLock", "ReadTryLock", "ReadUnlock",
	"WriteLock", "WriteTryLock", "WriteUnlock", NULL,
};
static const char *const event_names[N_EVENTS] = {
	"call", "contention_begin", "contention_end", "return",
};

/* A call under way: its op, whether it found the lock held, its contention. */
struct call {
	int open;
	enum op op;
	int blocked, begun, ended;
};

struct rwlock_fold {
	struct fold_run *run;
	struct line_reader in;
	int reading[THREADS];
	int writer;
	struct call calls[THREADS];
	long long nevents, contended;
};

static const struct folder *rwlock_folder(void);

static cJSON *rwlock_state(const struct rwlock_fold *s)
{
	cJSON *st = json_obj(), *readers = json_arr();

	for (int t = 0; t < THREADS; t++)
		if (s->reading[t])
			json_add(readers, NULL, json_int(t));
	json_add(st, "readers", readers);
	json_add(st, "writer", s->writer == NO_ONE ? json_null() : json_int(s->writer));
	return st;
}

static _Noreturn void violation(const struct rwlock_fold *s, int t, enum op op,
				const char *why)
{
	die_at(EXIT_CHECK_FAILED, s->in.path, s->in.line, "%s by thread %d: %s",
	       rwlock_op_names[op], t, why);
}

static int nreaders(const struct rwlock_fold *s)
{
	int n = 0;

	for (int t = 0; t < THREADS; t++)
		n += s->reading[t];
	return n;
}

/* Is the lock held against @op (would its lock() wait)? */
static int held_against(const struct rwlock_fold *s, enum op op)
{
	return s->writer != NO_ONE ||
	       ((op == WRITE_LOCK || op == WRITE_TRYLOCK) && nreaders(s));
}

/* Another thread's lock() under way (a writer queued stops new readers). */
static int lock_waiting(const struct rwlock_fold *s, int t)
{
	for (int u = 0; u < THREADS; u++)
		if (u != t && s->calls[u].open && s->calls[u].blocked)
			return 1;
	return 0;
}

static const char *take(struct rwlock_fold *s, int t, enum op op)
{
	if (s->reading[t])
		return "a read lock is held already (the state is a set)";
	if (s->writer == t)
		return "the thread holds the write lock";
	if (held_against(s, op))
		return "the lock is held against it";
	if (op == READ_LOCK || op == READ_TRYLOCK)
		s->reading[t] = 1;
	else
		s->writer = t;
	return NULL;
}

static const char *release(struct rwlock_fold *s, int t, enum op op)
{
	if (op == READ_UNLOCK) {
		if (!s->reading[t])
			return "the thread does not hold a read lock";
		s->reading[t] = 0;
	} else {
		if (s->writer != t)
			return "the thread does not hold the write lock";
		s->writer = NO_ONE;
	}
	return NULL;
}

static const char *trylock_failed(const struct rwlock_fold *s, int t, enum op op)
{
	if (held_against(s, op) || lock_waiting(s, t))
		return NULL;
	return "failed on a lock nothing holds against it or waits for";
}

/* A lock() that waited: the kernel's contention_begin and _end, one each. */
static void check_contention(const struct rwlock_fold *s, int t,
			     const struct call *c)
{
	if (c->blocked && !(c->begun && c->ended))
		violation(s, t, c->op, "it found the lock held but the kernel "
			  "reported no contention_begin/end for it");
	if (c->begun != c->ended)
		violation(s, t, c->op, "contention_begin without contention_end");
}

static void on_return(struct rwlock_fold *s, int t, enum op op, int ok)
{
	struct call *c = &s->calls[t];
	const char *why;
	cJSON *data;

	if (!c->open || c->op != op)
		violation(s, t, op, "a return without its call");
	check_contention(s, t, c);
	s->contended += c->begun;
	if (op == READ_UNLOCK || op == WRITE_UNLOCK)
		why = ok ? release(s, t, op) : "an unlock cannot fail";
	else if (op == READ_LOCK || op == WRITE_LOCK)
		why = ok ? take(s, t, op) : "a lock() cannot fail";
	else
		why = ok ? take(s, t, op) : trylock_failed(s, t, op);
	if (why)
		violation(s, t, op, why);
	c->open = 0;
	data = json_obj();
	json_add(data, "thread", json_int(t));
	windows_add(s->run->windows, rwlock_actions[op], data, rwlock_state(s));
}

static void on_call(struct rwlock_fold *s, int t, enum op op)
{
	struct call *c = &s->calls[t];

	if (c->open)
		violation(s, t, op, "a call while its previous call has not returned");
	*c = (struct call){ .open = 1, .op = op,
			    .blocked = (op == READ_LOCK || op == WRITE_LOCK) &&
				       held_against(s, op) };
}

static void on_contention(struct rwlock_fold *s, int t, enum op op, enum event e)
{
	struct call *c = &s->calls[t];

	if (!c->open || c->op != op || (op != READ_LOCK && op != WRITE_LOCK))
		violation(s, t, op, "contention outside a read_lock or write_lock call");
	if (e == CONTENTION_BEGIN ? c->begun : c->ended || !c->begun)
		violation(s, t, op, e == CONTENTION_BEGIN ? "a second contention_begin"
				    : "contention_end without one contention_begin");
	*(e == CONTENTION_BEGIN ? &c->begun : &c->ended) = 1;
}

static int lookup(const char *word, const char *const names[], int n)
{
	for (int i = 0; word && i < n; i++)
		if (!strcmp(word, names[i]))
			return i;
	return -1;
}

/* Write the normalized event: the raw line, keys in this order. */
static void normalized(struct rwlock_fold *s, long long seq, int t, enum op op,
		       enum event e, int ok)
{
	cJSON *ev = json_obj();

	json_add(ev, "seq", json_int(seq));
	json_add(ev, "thread", json_int(t));
	json_add(ev, "op", json_str(rwlock_op_names[op]));
	json_add(ev, "event", json_str(event_names[e]));
	if (e == RETURN)
		json_add(ev, "ok", json_bool(ok));
	events_add(s->run->events, ev);
	cJSON_Delete(ev);
}

/* One event of the stream, its seq checked by the reader (serial.h). */
static void on_event(void *ctx, const cJSON *v)
{
	struct rwlock_fold *s = ctx;
	long long t = ndjson_natural(&s->in, v, "thread");
	int op = lookup(json_get_str(v, "op"), rwlock_op_names, N_OPS);
	int e = lookup(json_get_str(v, "event"), event_names, N_EVENTS);
	int ok = 1;

	if (op < 0 || e < 0 || t >= THREADS)
		die_at(EXIT_BAD_INPUT, s->in.path, s->in.line,
		       "expected a thread 0 or 1, an op (read_lock, ... write_unlock) "
		       "and an event (call, contention_begin, contention_end, return)");
	if (e == RETURN) {
		const cJSON *k = json_get(v, "ok");

		if (!cJSON_IsBool(k))
			die_at(EXIT_BAD_INPUT, s->in.path, s->in.line,
			       "a return needs \"ok\": true or false");
		ok = cJSON_IsTrue(k);
	}
	normalized(s, s->nevents++, (int)t, op, e, ok);
	if (e == CALL)
		on_call(s, (int)t, op);
	else if (e == RETURN)
		on_return(s, (int)t, op, ok);
	else
		on_contention(s, (int)t, op, e);
}

static void on_begin(void *ctx)
{
	struct rwlock_fold *s = ctx;
	cJSON *initial = rwlock_state(s);

	fold_run_windows(s->run, rwlock_folder(), initial);
	cJSON_Delete(initial);
}

/*
 * A call still open at the end: a lock() that can never return (by the
 * writer, or a write_lock by a reader) is a call observed never
 * completing; any other would have returned at an unlock the run lacks.
 */
static void never_returned(struct rwlock_fold *s, int t)
{
	const struct call *c = &s->calls[t];
	cJSON *data;

	if (!((c->op == READ_LOCK && s->writer == t) ||
	      (c->op == WRITE_LOCK && (s->writer == t || s->reading[t]))))
		violation(s, t, c->op, "the call never returned");
	data = json_obj();
	json_add(data, "thread", json_int(t));
	fold_run_never_completing(s->run, rwlock_actions[c->op], data);
}

/* Every event counted by the reader: calls still open never returned. */
static void on_end(void *ctx)
{
	struct rwlock_fold *s = ctx;

	for (int t = 0; t < THREADS; t++)
		if (s->calls[t].open)
			never_returned(s, t);
}

static const struct serial_ops rwlock_serial = {
	.system = "rwlock", .begin = on_begin, .event = on_event, .end = on_end,
};

static void fold_rwlock(struct fold_run *run)
{
	struct rwlock_fold s = { .run = run, .writer = NO_ONE };
	int cleanup = 0;
	char *stream = fold_run_decoded(run, rwlock_trace_decode, &cleanup);
	struct cap_err err;

	if (serial_read(&s.in, stream ? stream : run->path, run->input,
			&rwlock_serial, &s, &err) < 0)
		die_err(&err);
	fold_run_decoded_done(stream, cleanup);
	json_add(run->info, "raw_events", json_int(s.nevents));
	json_add(run->info, "contended_calls", json_int(s.contended));
}

static const struct itf_var rwlock_itf[] = {
	{ "readers", "set" },
	{ "writer", "option" },
	{ 0 }
};

static const char *const rwlock_actor[] = { "thread", NULL };

const struct folder folder_rwlock = {
	.name = "rwlock",
	.summary = "the kernel's rwlock_t under two actors, readers and a writer",
	.actions = rwlock_actions,
	.form = FORM_EVENT,
	.fold = fold_rwlock,
	.audit = &rwlock_audit,
	.itf = rwlock_itf,
	.actor = rwlock_actor,
};

static const struct folder *rwlock_folder(void)
{
	return &folder_rwlock;
}
