// SPDX-License-Identifier: MIT
/*
 * spin: a spinlock driven by two actors (Asterinas's SpinLock, Linux's
 * spinlock_t).
 *
 * Raw stream: the serial event channel (serial.h, which reads it), one
 * event a line,
 *   {"seq":N,"thread":T,"lock":0,"state":"locked|unlocked","action":A,"actor":T}
 * or capture spin's binary trace channel (raw/RUN.ftrace), decoded into
 * that stream first (spin-ftrace.h).
 * Actions: TryAcquireBlocking, StopSpinning, AcquireSuccess,
 * TryAcquireNonBlocking, AcquireFail, Release.  `state` is the lock as seen
 * right after the operation.
 *
 * Observable state {lockHeld, lockHolder}; windows AcquireLock {thread,
 * callType: lock|try} (a failed try is a window whose post equals its pre)
 * and ReleaseLock {thread}.  A lock() that begins on a lock another actor
 * holds is a window of its own when it begins (it starts spinning; its
 * post equals its pre) and another when it takes the lock.  The extended
 * projection (spin-spinning, folders/spin/spin-spinning.c) adds to the state
 * the set of actors spinning: those lock()s between the two windows, each
 * of which must show the kernel's evidence, StopSpinning, before it gets
 * the lock.  A release checks no owner, as spin_unlock() does not: a
 * release by another actor, or of a free lock, leaves the lock free.
 * The task projection (spin-task, folders/spin/spin-task.c) makes each event
 * but StopSpinning a window of its own, over the lock word and each
 * thread's place (idle, acquiring: inside a call, locked: between its
 * AcquireSuccess and its own Release).
 *
 * A try's outcome is the next event: the same actor's AcquireSuccess or
 * AcquireFail, or -- for emitters that print nothing on a failed try, like
 * the published Asterinas instrumentation -- anything else, which means the
 * try failed (sound for the sequential emitters both drivers are).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/ndjson.h"
#include "../../capture/proc.h"
#include "../../capture/fold.h"
#include "../../capture/readers/serial.h"
#include "../trace-fields.h"
#include "spin-ftrace.h"
#include "spin.h"

extern const struct audit_domain spin_audit;

enum spin_action {
	TRY_ACQUIRE_BLOCKING, STOP_SPINNING, ACQUIRE_SUCCESS,
	TRY_ACQUIRE_NON_BLOCKING, ACQUIRE_FAIL, RELEASE, N_SPIN_ACTIONS
};

static const char *const raw_actions[] = {
	"TryAcquireBlocking", "StopSpinning", "AcquireSuccess",
	"TryAcquireNonBlocking", "AcquireFail", "Release",
};

#define MAX_ACTORS 64
#define NO_ONE (-1)

enum pending { NONE, BLOCKING, NON_BLOCKING };

struct spin_event {
	long long thread, lock, actor;
	enum spin_action action;
	int locked;                 /* reported state */
};

struct spin_fold {
	struct fold_run *run;
	const struct folder *folder;
	enum spin_projection proj;
	int extended;               /* the state shows who spins */
	unsigned long long critical; /* spin-task: actors between their
				      * AcquireSuccess and their Release */
	unsigned long long spinning; /* actors in a lock() begun on a held lock */
	unsigned long long stopped; /* of those, the ones that showed StopSpinning */
	struct event_writer *trace; /* spin-task: SysMoBench's raw trace, or NULL */
	struct line_reader in;
	int held;
	long long holder;
	enum pending pending[MAX_ACTORS];
	long long try_actor;        /* actor whose try awaits its outcome */
	long long lock;             /* the one lock of the run */
	long long nevents;          /* raw events read */
	long long normalized;       /* events written */
	long long inferred;         /* failed tries inferred */
};

#define BIT(a) (1ULL << (a))

/* A thread's place in the task projection. */
static const char *task_pc(const struct spin_fold *s, int a)
{
	if (s->pending[a] != NONE)
		return "acquiring";
	return s->critical & BIT(a) ? "locked" : "idle";
}

static cJSON *task_state(const struct spin_fold *s)
{
	cJSON *st = json_obj(), *pc;
	char id[8];

	json_add(st, "lockState", json_str(s->held ? "locked" : "unlocked"));
	pc = json_add(st, "pc", json_obj());
	for (int a = 0; a < SPIN_TASK_THREADS; a++) {
		snprintf(id, sizeof(id), "%d", a);
		json_add(pc, id, json_str(task_pc(s, a)));
	}
	return st;
}

static cJSON *spin_state(const struct spin_fold *s)
{
	cJSON *st;

	if (s->proj == SPIN_TASK)
		return task_state(s);
	st = json_obj();

	json_add(st, "lockHeld", json_bool(s->held));
	json_add(st, "lockHolder", s->held ? json_int(s->holder) : json_null());
	if (s->extended) {
		cJSON *set = json_add(st, "spinning", json_arr());

		for (int a = 0; a < MAX_ACTORS; a++)
			if (s->spinning & BIT(a))
				json_add(set, NULL, json_int(a));
	}
	return st;
}

static _Noreturn void violation(struct spin_fold *s, const char *fmt,
				const char *what, long long actor)
{
	die_at(EXIT_CHECK_FAILED, s->in.path, s->in.line, fmt, what, actor);
}

/*
 * spin-task: the event in SysMoBench's raw trace, the shape their
 * generate_windows.py reads (trace_*.jsonl: seq, action, actor, state,
 * state the lock after it), seq from 1.  A failed try is written as the
 * AcquireFail the fold knows, inferred or not: their instrumentation
 * prints none, their generator knows none (docs/task-projections.md).
 */
static void traced(struct spin_fold *s, const struct spin_event *e,
		   enum spin_action action)
{
	cJSON *ev = json_obj();

	json_add(ev, "seq", json_int(s->normalized));
	json_add(ev, "action", json_str(raw_actions[action]));
	json_add(ev, "actor", json_int(e->actor));
	json_add(ev, "state", json_str(s->held || action == STOP_SPINNING ?
				       "locked" : "unlocked"));
	events_add(s->trace, ev);
	cJSON_Delete(ev);
}

/* Write the normalized event: the raw schema with a contiguous seq. */
static void normalized(struct spin_fold *s, const struct spin_event *e,
		       enum spin_action action, int inferred)
{
	cJSON *ev = json_obj();

	json_add(ev, "seq", json_int(s->normalized++));
	json_add(ev, "thread", json_int(e->thread));
	json_add(ev, "lock", json_int(s->lock));
	/* A spin ends by taking the lock (see apply()). */
	json_add(ev, "state", json_str(s->held || action == STOP_SPINNING ?
				       "locked" : "unlocked"));
	json_add(ev, "action", json_str(raw_actions[action]));
	json_add(ev, "actor", json_int(e->actor));
	if (inferred)
		json_add(ev, "inferred", json_bool(1));
	events_add(s->run->events, ev);
	cJSON_Delete(ev);
	if (s->trace)
		traced(s, e, action);
}

/* spin-task: the event @action by @actor (@call_type: NULL, or the call's). */
static void window_task(struct spin_fold *s, const char *action,
			long long actor, const char *call_type)
{
	cJSON *data = json_obj(), *post = spin_state(s);

	json_add(data, "thread", json_int(actor));
	if (call_type)
		json_add(data, "callType", json_str(call_type));
	windows_add(s->run->windows, action, data, post);
}

static void window_acquire(struct spin_fold *s, long long actor,
			   const char *call_type)
{
	cJSON *data = json_obj(), *post = spin_state(s);

	json_add(data, "thread", json_int(actor));
	json_add(data, "callType", json_str(call_type));
	windows_add(s->run->windows, "AcquireLock", data, post);
}

static void window_release(struct spin_fold *s, long long actor)
{
	cJSON *data = json_obj(), *post = spin_state(s);

	json_add(data, "thread", json_int(actor));
	windows_add(s->run->windows, "ReleaseLock", data, post);
}

/* A try that failed: legal only on a held lock; the state does not change. */
static void try_failed(struct spin_fold *s, const struct spin_event *e,
		       int inferred)
{
	if (!s->held)
		violation(s, "%s: a try by actor %lld failed on a free lock",
			  inferred ? "inferred failure" : "AcquireFail", e->actor);
	s->pending[e->actor] = NONE;
	s->try_actor = NO_ONE;
	s->inferred += inferred;
	normalized(s, e, ACQUIRE_FAIL, inferred);
	if (s->proj == SPIN_TASK)
		window_task(s, "AcquireFail", e->actor, NULL);
	else
		window_acquire(s, e->actor, "try");
}

static void resolve_pending_try(struct spin_fold *s, const struct spin_event *e)
{
	struct spin_event failed;

	if (s->try_actor == NO_ONE)
		return;
	if (e && e->actor == s->try_actor &&
	    (e->action == ACQUIRE_SUCCESS || e->action == ACQUIRE_FAIL))
		return;
	failed = (struct spin_event){
		.thread = s->try_actor, .actor = s->try_actor,
		.lock = s->lock, .action = ACQUIRE_FAIL,
	};
	try_failed(s, &failed, 1);
}

static void acquired(struct spin_fold *s, const struct spin_event *e)
{
	enum pending p = s->pending[e->actor];

	if (p == NONE)
		violation(s, "%s by actor %lld without a preceding try",
			  "AcquireSuccess", e->actor);
	if (s->held)
		violation(s, "%s: actor %lld got a lock that is held",
			  "AcquireSuccess", e->actor);
	if (s->extended && (s->spinning & ~s->stopped & BIT(e->actor)))
		violation(s, "%s: the lock() of actor %lld began on a held lock, "
			  "but no StopSpinning shows that the kernel saw it spin "
			  "(the trace channel's kretprobe evidence is missing)",
			  "AcquireSuccess", e->actor);
	s->spinning &= ~BIT(e->actor);
	s->stopped &= ~BIT(e->actor);
	s->held = 1;
	s->holder = e->actor;
	s->critical |= BIT(e->actor);
	s->pending[e->actor] = NONE;
	s->try_actor = NO_ONE;
	normalized(s, e, ACQUIRE_SUCCESS, 0);
	if (s->proj == SPIN_TASK)
		window_task(s, "AcquireSuccess", e->actor,
			    p == BLOCKING ? "lock" : "try");
	else
		window_acquire(s, e->actor, p == BLOCKING ? "lock" : "try");
}

/*
 * A lock() by @actor begins: on a lock another actor holds, it spins, a
 * window of its own (the two-variable state does not change; the extended
 * one shows the spinner).  On its own lock it never returns (on_end()).
 */
static void starts_spinning(struct spin_fold *s, long long actor)
{
	if (!s->held || s->holder == actor)
		return;
	s->spinning |= BIT(actor);
	window_acquire(s, actor, "lock");
}

static void apply(struct spin_fold *s, const struct spin_event *e)
{
	resolve_pending_try(s, e);
	switch (e->action) {
	case TRY_ACQUIRE_BLOCKING:
	case TRY_ACQUIRE_NON_BLOCKING:
		if (s->pending[e->actor] != NONE)
			violation(s, "%s: actor %lld already has an acquire under way",
				  raw_actions[e->action], e->actor);
		s->pending[e->actor] = e->action == TRY_ACQUIRE_BLOCKING
					       ? BLOCKING : NON_BLOCKING;
		if (e->action == TRY_ACQUIRE_NON_BLOCKING)
			s->try_actor = e->actor;
		normalized(s, e, e->action, 0);
		if (s->proj == SPIN_TASK)
			window_task(s, raw_actions[e->action], e->actor, NULL);
		else if (e->action == TRY_ACQUIRE_BLOCKING)
			starts_spinning(s, e->actor);
		break;
	case STOP_SPINNING:
		if (s->pending[e->actor] != BLOCKING)
			violation(s, "%s: actor %lld is not in lock()",
				  "StopSpinning", e->actor);
		if (s->held)
			violation(s, "%s: actor %lld stopped spinning on a lock "
				  "still held", "StopSpinning", e->actor);
		/*
		 * The spin ended by taking the lock: the emitter sees it held,
		 * by the spinner, whose AcquireSuccess follows.
		 */
		if (!e->locked)
			violation(s, "%s by actor %lld reports the lock free: the "
				  "spin ends by taking it", "StopSpinning", e->actor);
		if (s->extended && !(s->spinning & BIT(e->actor)))
			violation(s, "%s: the lock() of actor %lld began on a free "
				  "lock", "StopSpinning", e->actor);
		s->stopped |= s->spinning & BIT(e->actor);
		normalized(s, e, e->action, 0);
		return;
	case ACQUIRE_SUCCESS:
		acquired(s, e);
		break;
	case ACQUIRE_FAIL:
		if (s->pending[e->actor] != NON_BLOCKING)
			violation(s, "%s by actor %lld without a preceding try",
				  "AcquireFail", e->actor);
		try_failed(s, e, 0);
		break;
	case RELEASE:
		if (s->pending[e->actor] == BLOCKING)
			violation(s, "%s by actor %lld, which is inside lock()",
				  "Release", e->actor);
		/* spin_unlock() checks no owner: the lock is free after it */
		s->held = 0;
		s->critical &= ~BIT(e->actor);
		normalized(s, e, e->action, 0);
		if (s->proj == SPIN_TASK)
			window_task(s, "Release", e->actor, NULL);
		else
			window_release(s, e->actor);
		break;
	default:
		break;
	}
	/* The emitter saw the lock as we folded it (a failed try: still held). */
	if (e->locked != s->held)
		violation(s, "%s by actor %lld reports a lock state that "
			  "contradicts the events before it", raw_actions[e->action],
			  e->actor);
}

static struct spin_event parse_event(struct spin_fold *s, const cJSON *v)
{
	struct spin_event e = { 0 };
	const char *action, *state;
	int a;

	e.thread = ndjson_natural(&s->in, v, "thread");
	e.lock = ndjson_natural(&s->in, v, "lock");
	e.actor = ndjson_natural(&s->in, v, "actor");
	action = json_get_str(v, "action");
	state = json_get_str(v, "state");
	for (a = 0; action && a < N_SPIN_ACTIONS; a++)
		if (!strcmp(action, raw_actions[a]))
			break;
	if (!action || a == N_SPIN_ACTIONS)
		die_at(EXIT_BAD_INPUT, s->in.path, s->in.line,
		       "unknown action \"%s\"", action ? action : "(none)");
	if (!state || (strcmp(state, "locked") && strcmp(state, "unlocked")))
		die_at(EXIT_BAD_INPUT, s->in.path, s->in.line,
		       "\"state\" must be \"locked\" or \"unlocked\"");
	if (e.actor >= MAX_ACTORS)
		die_at(EXIT_BAD_INPUT, s->in.path, s->in.line,
		       "actor %lld: at most %d actors", e.actor, MAX_ACTORS);
	/* the task's state names every thread from the start */
	if (s->proj == SPIN_TASK && e.actor >= SPIN_TASK_THREADS)
		die_at(EXIT_BAD_INPUT, s->in.path, s->in.line, "actor %lld: "
		       "spin-task's pc is over threads 0 to %d", e.actor,
		       SPIN_TASK_THREADS - 1);
	e.action = a;
	e.locked = !strcmp(state, "locked");
	return e;
}

static void on_event(void *ctx, const cJSON *v)
{
	struct spin_fold *s = ctx;
	struct spin_event e = parse_event(s, v);

	if (!s->nevents)
		s->lock = e.lock;
	else if (e.lock != s->lock)
		die_at(EXIT_CHECK_FAILED, s->in.path, s->in.line,
		       "events on locks %lld and %lld: a run traces one lock",
		       s->lock, e.lock);
	s->nevents++;
	apply(s, &e);
}

static void on_begin(void *ctx)
{
	struct spin_fold *s = ctx;
	cJSON *initial = spin_state(s);
	fold_run_windows(s->run, s->folder, initial);
	cJSON_Delete(initial);
}

/*
 * Actor @a's lock() was still spinning at the end.  By the holder it is a
 * real self-deadlock that can never return: a call observed never
 * completing.  Anyone else's would have got the lock at the release the
 * run does not show.
 */
static void lock_never_returned(struct spin_fold *s, int a)
{
	cJSON *data;

	if (!s->held || s->holder != a)
		die_at(EXIT_CHECK_FAILED, s->in.path, s->in.line,
		       "actor %d's lock() never succeeded", a);
	data = json_obj();
	json_add(data, "thread", json_int(a));
	json_add(data, "callType", json_str("lock"));
	fold_run_never_completing(s->run, s->proj == SPIN_TASK ?
				  "AcquireSuccess" : "AcquireLock", data);
}

static void on_end(void *ctx)
{
	struct spin_fold *s = ctx;

	resolve_pending_try(s, NULL);
	for (int a = 0; a < MAX_ACTORS; a++)
		if (s->pending[a] == BLOCKING)
			lock_never_returned(s, a);
}

static const struct serial_ops spin_serial = {
	.system = "spin", .begin = on_begin, .event = on_event, .end = on_end,
};

void spin_fold(struct fold_run *run, const struct folder *f,
	       enum spin_projection proj)
{
	struct spin_fold s = {
		.run = run, .folder = f, .proj = proj,
		.extended = proj == SPIN_SPINNING,
		.try_actor = NO_ONE,
	};
	int cleanup = 0;
	char *stream = fold_run_decoded(run, spin_trace_decode, &cleanup);
	char *trace = xasprintf("traces/trace_%s.jsonl", run->name);
	struct cap_err err;

	if (proj == SPIN_TASK)
		s.trace = events_open(run->corpus, trace);
	free(trace);

	if (serial_read(&s.in, stream ? stream : run->path, run->input,
			&spin_serial, &s, &err) < 0)
		die_err(&err);
	fold_run_decoded_done(stream, cleanup);
	if (s.trace)
		events_close(s.trace);
	json_add(run->info, "raw_events", json_int(s.nevents));
	json_add(run->info, "inferred_failed_tries", json_int(s.inferred));
}

static void fold_spin(struct fold_run *run)
{
	spin_fold(run, &folder_spin, SPIN_REFERENCE);
}

const char *const spin_actions[] = { "AcquireLock", "ReleaseLock", NULL };

const struct itf_var spin_itf[] = {
	{ "lockHolder", "option" },
	{ 0 }
};

const char *const spin_actor[] = { "thread", NULL };

const struct folder folder_spin = {
	.name = "spin",
	.summary = "a spinlock under two actors (Linux spinlock_t, Asterinas SpinLock)",
	.actions = spin_actions,
	.form = FORM_EVENT,
	.fold = fold_spin,
	.audit = &spin_audit,
	.itf = spin_itf,
	.actor = spin_actor,
};
