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
 *
 * rwlock-task: the kernel's events at SysMoBench's
 * rwmutex task granularity, over {writer, readers, pc, acquiring}: the
 * lock as its holders make it (the WRITER bit, the reader count), per
 * thread what it holds and the lock call it is inside; a lock call's
 * beginning and its return are windows of their own, the contention
 * events are checked and change nothing.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/ndjson.h"
#include "../../capture/fold.h"
#include "rwlock-ftrace.h"
#include "rwlock-ops.h"
#include "../../capture/readers/serial.h"
#include "../trace-fields.h"

extern const struct audit_domain rwlock_audit;

#define THREADS 2
#define NO_ONE (-1)

enum event { CALL, CONTENTION_BEGIN, CONTENTION_END, RETURN, N_EVENTS };

/*
 * rwlock-task's actions: a lock call begins, an unlock returns (these six
 * in their op's place), a lock call returns holding the lock, a try fails.
 */
enum task_action {
	READ_BLOCKING, READ_NON_BLOCKING, RELEASE_READ, WRITE_BLOCKING,
	WRITE_NON_BLOCKING, RELEASE_WRITE, READ_SUCCESS, WRITE_SUCCESS,
	ACQUIRE_FAIL, N_TASK_ACTIONS
};
static const char *const task_actions[N_TASK_ACTIONS + 1] = {
	"ReadBlocking", "ReadNonBlocking", "ReadRelease", "WriteBlocking",
	"WriteNonBlocking", "WriteRelease", "ReadAcquireSuccess",
	"WriteAcquireSuccess", "AcquireFail", NULL,
};
_Static_assert((int)READ_BLOCKING == READ_LOCK && (int)RELEASE_READ == READ_UNLOCK &&
	       (int)WRITE_NON_BLOCKING == WRITE_TRYLOCK &&
	       (int)RELEASE_WRITE == WRITE_UNLOCK, "task actions in their op's place");
static const char *const event_names[N_EVENTS] = {
	"call", "contention_begin", "contention_end", "return",
};

/* A call under way: its op, whether it found the lock held, its contention. */
struct call {
	int open;
	enum rwlock_op op;
	int blocked, begun, ended;
};

struct rwlock_fold {
	struct fold_run *run;
	const struct folder *folder;
	int task;                  /* rwlock-task's projection */
	struct line_reader in;
	int reading[THREADS];
	int writer;
	struct call calls[THREADS];
	long long nevents, contended;
};

static int nreaders(const struct rwlock_fold *s);

static int is_lock(enum rwlock_op op)
{
	return op != READ_UNLOCK && op != WRITE_UNLOCK;
}

static int is_read(enum rwlock_op op)
{
	return op == READ_LOCK || op == READ_TRYLOCK || op == READ_UNLOCK;
}

/* rwlock-task: what thread @t holds. */
static const char *task_pc(const struct rwlock_fold *s, int t)
{
	if (s->reading[t])
		return "reading";
	return s->writer == t ? "writing" : "idle";
}

/* rwlock-task: the lock call thread @t has under way. */
static const char *task_acquiring(const struct rwlock_fold *s, int t)
{
	const struct call *c = &s->calls[t];

	if (!c->open || !is_lock(c->op))
		return "none";
	return is_read(c->op) ? "read" : "write";
}

/*
 * {writer, readers, pc, acquiring}: the lock as its holders make it, and
 * per thread what it holds and which lock call it is inside (a reader may
 * try the write lock: both at once).
 */
static cJSON *task_state(const struct rwlock_fold *s)
{
	cJSON *st = json_obj(), *pc, *acq;
	char id[4];

	json_add(st, "writer", json_bool(s->writer != NO_ONE));
	json_add(st, "readers", json_int(nreaders(s)));
	pc = json_add(st, "pc", json_obj());
	acq = json_add(st, "acquiring", json_obj());
	for (int t = 0; t < THREADS; t++) {
		snprintf(id, sizeof(id), "%d", t);
		json_add(pc, id, json_str(task_pc(s, t)));
		json_add(acq, id, json_str(task_acquiring(s, t)));
	}
	return st;
}

static cJSON *rwlock_state(const struct rwlock_fold *s)
{
	cJSON *st, *readers;

	if (s->task)
		return task_state(s);
	st = json_obj();
	readers = json_arr();

	for (int t = 0; t < THREADS; t++)
		if (s->reading[t])
			json_add(readers, NULL, json_int(t));
	json_add(st, "readers", readers);
	json_add(st, "writer", s->writer == NO_ONE ? json_null() : json_int(s->writer));
	return st;
}

static _Noreturn void violation(const struct rwlock_fold *s, int t,
				enum rwlock_op op, const char *why)
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
static int held_against(const struct rwlock_fold *s, enum rwlock_op op)
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

static const char *take(struct rwlock_fold *s, int t, enum rwlock_op op)
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

static const char *release(struct rwlock_fold *s, int t, enum rwlock_op op)
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

static const char *trylock_failed(const struct rwlock_fold *s, int t,
				  enum rwlock_op op)
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

/* A window of @action by thread @t; @call_type: NULL, or the call's. */
static void window(struct rwlock_fold *s, const char *action, int t,
		   const char *call_type)
{
	cJSON *data = json_obj();

	json_add(data, "thread", json_int(t));
	if (call_type)
		json_add(data, "callType", json_str(call_type));
	windows_add(s->run->windows, action, data, rwlock_state(s));
}

/* rwlock-task: the return of @op (@ok: what it returned). */
static void task_return(struct rwlock_fold *s, int t, enum rwlock_op op, int ok)
{
	int try = op == READ_TRYLOCK || op == WRITE_TRYLOCK;
	enum task_action a;

	if (!is_lock(op))
		a = (enum task_action)op;
	else if (!ok)
		a = ACQUIRE_FAIL;
	else
		a = is_read(op) ? READ_SUCCESS : WRITE_SUCCESS;
	window(s, task_actions[a], t, is_lock(op) && ok ? try ? "try" : "lock"
						     : NULL);
}

static void on_return(struct rwlock_fold *s, int t, enum rwlock_op op, int ok)
{
	struct call *c = &s->calls[t];
	const char *why;

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
	if (s->task)
		task_return(s, t, op, ok);
	else
		window(s, rwlock_actions[op], t, NULL);
}

static void on_call(struct rwlock_fold *s, int t, enum rwlock_op op)
{
	struct call *c = &s->calls[t];

	if (c->open)
		violation(s, t, op, "a call while its previous call has not returned");
	*c = (struct call){ .open = 1, .op = op,
			    .blocked = (op == READ_LOCK || op == WRITE_LOCK) &&
				       held_against(s, op) };
	if (s->task && is_lock(op))
		window(s, task_actions[op], t, NULL);
}

static void on_contention(struct rwlock_fold *s, int t, enum rwlock_op op,
			  enum event e)
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
static void normalized(struct rwlock_fold *s, long long seq, int t,
		       enum rwlock_op op, enum event e, int ok)
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

	fold_run_windows(s->run, s->folder, initial);
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
	if (s->task)
		json_add(data, "callType", json_str("lock"));
	fold_run_never_completing(s->run, !s->task ? rwlock_actions[c->op] :
				  task_actions[is_read(c->op) ? READ_SUCCESS :
					       WRITE_SUCCESS], data);
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

static void fold_as(struct fold_run *run, const struct folder *f, int task)
{
	struct rwlock_fold s = { .run = run, .folder = f, .task = task,
				 .writer = NO_ONE };
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

extern const struct folder folder_rwlock, folder_rwlock_task;

static void fold_rwlock(struct fold_run *run)
{
	fold_as(run, &folder_rwlock, 0);
}

static void fold_task(struct fold_run *run)
{
	fold_as(run, &folder_rwlock_task, 1);
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

const struct folder folder_rwlock_task = {
	.name = "rwlock-task",
	.summary = "rwlock at SysMoBench's rwmutex task granularity: the "
		   "kernel's events over {writer, readers, pc, acquiring} "
		   "(docs/task-projections.md)",
	.actions = task_actions,
	.form = FORM_CANONICAL,
	.fold = fold_task,
	.actor = rwlock_actor,
	.refines = &folder_rwlock,
};
