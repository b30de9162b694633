// SPDX-License-Identifier: GPL-2.0
/*
 * rwlock: run a two-actor scenario on one real rwlock_t (the kernel's
 * queued rwlock) and report every call and return on the QEMU debug
 * console (port 0xe9) and into the ftrace ring buffer.
 *
 * The scenario comes as a module parameter, two characters a step (actor
 * digit, op letter: r read_lock, t read_trylock, u read_unlock, w
 * write_lock, x write_trylock, v write_unlock), so a new scenario file
 * needs no rebuild.
 *
 * At one CPU the writer of start acts for both actors, so a call that
 * would wait for the other actor is refused.  At two CPUs (cpus=2) each
 * actor is a kthread pinned to its CPU; they take turns on a step counter,
 * and a read_lock on a write-held lock or a write_lock on a held lock
 * really waits in the kernel's slow path (queued_read_lock_slowpath,
 * queued_write_lock_slowpath, which fire lock:contention_begin/end) until
 * the other actor's unlock.  The holder unlocks only once the lock word
 * shows the waiter queued, so the wait really happens.
 *
 * The observable state is {readers: a set, writer}: a recursive read_lock
 * (which the kernel allows, in a count) is refused, as are the calls that
 * could never return (a read_lock by the writer, a write_lock by a reader
 * or the writer) and an unlock by an actor that does not hold the lock
 * (qrwlock keeps no owner: it would corrupt the lock word).
 *
 * The module is loaded with its tracing armed and waits: name and steps
 * are written after the load, then a write to start runs the scenario (so
 * that a guest saved after the load can be restored for any scenario).
 *
 * Events go to a buffer during the scenario and are written after it.
 * Output, one line each:
 *	CAPTURE BEGIN <name>
 *	{"seq":N,"thread":T,"op":OP,"event":"call"}
 *	{"seq":N,"thread":T,"op":OP,"event":"return","ok":true|false}
 *	CAPTURE END <number of events>
 * or, instead of END, "CAPTURE ERROR step N: <why>" (the module still
 * loads: a failed init_module makes busybox's insmod retry).
 */
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/ktime.h>

#include "module-start.h"

/* The op letters, in the scenario language's order (scenarios/rwlock/steps.c). */
#define STEP_OPS "rtuwxv"
#define BAD_OP "op is not one of r, t, u, w, x, v"
#include "module-actors.h"

#define CREATE_TRACE_POINTS
#include "rwlock-trace.h"

/* How long a holder waits for its waiter to show up in the lock word. */
#define WAITER_WAIT_NS (2000 * NSEC_PER_MSEC)

enum op { READ_LOCK, READ_TRYLOCK, READ_UNLOCK, WRITE_LOCK, WRITE_TRYLOCK,
	  WRITE_UNLOCK, N_OPS };

static const char op_letters[N_OPS + 1] = STEP_OPS;
static const char *const op_names[N_OPS] = {
	"read_lock", "read_trylock", "read_unlock",
	"write_lock", "write_trylock", "write_unlock",
};

struct event {
	u8 actor;
	u8 op;
	u8 ret;		/* 0: the call, 1: its return */
	u8 ok;		/* a trylock's result; 1 for the others */
};

static DEFINE_RWLOCK(the_lock);

/* The scenario's state, written by the actor whose turn it is (t). */
struct run {
	struct turns t;
	struct event *events;
	size_t nevents;
	unsigned int readers;	/* bit mask of the actors holding it to read */
	int writer;		/* actor holding it to write, NO_ONE if none */
};

static enum op op_of(size_t i)
{
	return (enum op)(strchr(op_letters, step_op(i)) - op_letters);
}

static void record(struct run *r, int actor, enum op op, bool ret, bool ok)
{
	struct event *e = &r->events[r->nevents++];

	*e = (struct event){ .actor = actor, .op = op, .ret = ret, .ok = ok };
	trace_rwlock_op(r->nevents - 1, actor, op, ret, ok, &the_lock.raw_lock);
}

static bool reads(const struct run *r, int actor)
{
	return r->readers & (1u << actor);
}

/* Would @op by @actor wait for the other actor? */
static bool must_wait(const struct run *r, enum op op)
{
	return r->writer != NO_ONE || (op == WRITE_LOCK && r->readers);
}

/*
 * Can @actor wait at step @i until the holder lets go?  Only at two CPUs,
 * and only if the other actor unlocks before @actor's next step.
 */
static const char *cannot_wait(const struct run *r, size_t i, int actor)
{
	if (cpus == 1)
		return "waiting for the other actor is impossible at one CPU";
	if (unlocked_before_next(&r->t, i, actor, "uv"))
		return NULL;
	return "a wait for a lock that is not unlocked before this actor's next step";
}

/* Calls the state {readers (a set), writer} cannot hold, or that never return. */
static const char *refused(const struct run *r, enum op op, int actor)
{
	switch (op) {
	case READ_LOCK:
	case READ_TRYLOCK:
		if (reads(r, actor))
			return "a recursive read lock: readers is a set";
		if (op == READ_LOCK && r->writer == actor)
			return "read_lock by the writer never returns";
		return NULL;
	case WRITE_LOCK:
		if (reads(r, actor) || r->writer == actor)
			return "write_lock by an actor holding the lock never returns";
		return NULL;
	case READ_UNLOCK:
		return reads(r, actor) ? NULL : "read_unlock by an actor not reading";
	case WRITE_UNLOCK:
		return r->writer == actor ? NULL : "write_unlock by an actor not writing";
	default:
		return NULL;
	}
}

static void take(struct run *r, enum op op, int actor)
{
	if (op == READ_LOCK || op == READ_TRYLOCK)
		r->readers |= 1u << actor;
	else
		r->writer = actor;
}

/* Wait in the kernel's slow path until the holder unlocks, record after it. */
static void lock_waiting(struct run *r, size_t i, enum op op, int actor)
{
	record(r, actor, op, 0, 1);
	wait_begin(&r->t, i, actor);
	if (op == READ_LOCK)
		read_lock(&the_lock);
	else
		write_lock(&the_lock);
	wait_handoff(&r->t);
	record(r, actor, op, 1, 1);
	take(r, op, actor);
	wait_end(&r->t);
}

static bool try_op(enum op op)
{
	return op == READ_TRYLOCK ? read_trylock(&the_lock) : write_trylock(&the_lock);
}

static void lock_now(struct run *r, size_t i, enum op op, int actor)
{
	bool ok = true;

	record(r, actor, op, 0, 1);
	if (op == READ_LOCK)
		read_lock(&the_lock);
	else if (op == WRITE_LOCK)
		write_lock(&the_lock);
	else
		ok = try_op(op);
	record(r, actor, op, 1, ok);
	if (ok)
		take(r, op, actor);
	next_turn(&r->t, i);
}

/*
 * Is the waiter queued in the slow path, past its lock:contention_begin?
 * A writer sets _QW_WAITING once it holds the wait queue; a reader adds
 * its bias to the count while the writer holds the lock (a reader that
 * did so goes on into the slow path whatever the writer does next).
 */
static bool waiter_queued(void)
{
	u32 cnts = atomic_read(&the_lock.raw_lock.cnts);

	return (cnts & _QW_WAITING) || ((cnts & _QW_LOCKED) && cnts >> _QR_SHIFT);
}

/* Bounded: if it never shows, the host finds no contention and fails the run. */
static void wait_for_waiter(void)
{
	u64 until = ktime_get_ns() + WAITER_WAIT_NS;

	while (!waiter_queued() && ktime_get_ns() < until)
		cpu_relax();
}

static void unlock(struct run *r, size_t i, enum op op, int actor)
{
	bool waiting = has_waiter(&r->t);

	record(r, actor, op, 0, 1);
	if (waiting)
		wait_for_waiter();
	if (op == READ_UNLOCK) {
		read_unlock(&the_lock);
		r->readers &= ~(1u << actor);
	} else {
		write_unlock(&the_lock);
		r->writer = NO_ONE;
	}
	record(r, actor, op, 1, 1);
	if (waiting)
		hand_over(&r->t);
	next_turn(&r->t, i);
}

static const char *step(struct run *r, size_t i)
{
	int actor = step_actor(i);
	enum op op = op_of(i);
	const char *why = refused(r, op, actor);

	if (why)
		return why;
	if (op == READ_UNLOCK || op == WRITE_UNLOCK) {
		unlock(r, i, op, actor);
	} else if ((op == READ_LOCK || op == WRITE_LOCK) && must_wait(r, op)) {
		why = cannot_wait(r, i, actor);
		if (!why)
			lock_waiting(r, i, op, actor);
	} else {
		lock_now(r, i, op, actor);
	}
	return why;
}

/* After the last step, unlock what this thread's actors hold. */
static void leave(struct run *r, unsigned int actors)
{
	for (int a = 0; a < ACTORS; a++) {
		if (!(actors & (1u << a)))
			continue;
		if (reads(r, a)) {
			r->readers &= ~(1u << a);
			read_unlock(&the_lock);
		}
		if (r->writer == a) {
			r->writer = NO_ONE;
			write_unlock(&the_lock);
		}
	}
}

static void report(const struct run *r)
{
	size_t i;

	debugcon_printf("CAPTURE BEGIN %s\n", name);
	for (i = 0; i < r->nevents; i++) {
		const struct event *e = &r->events[i];

		if (e->ret)
			debugcon_printf("{\"seq\":%zu,\"thread\":%u,\"op\":\"%s\","
					"\"event\":\"return\",\"ok\":%s}\n", i,
					e->actor, op_names[e->op],
					e->ok ? "true" : "false");
		else
			debugcon_printf("{\"seq\":%zu,\"thread\":%u,\"op\":\"%s\","
					"\"event\":\"call\"}\n", i, e->actor,
					op_names[e->op]);
	}
	report_end(&r->t, r->nevents);
}

/*
 * Tracing armed at load: NULL, or why not (without our events and the
 * kernel's lock:contention_* the trace cannot show a wait: the run is then
 * refused).
 */
static const char *armed;

/* Run the scenario in steps and report it; 0, or -ENOMEM. */
static int run_scenario(void)
{
	struct run r = { .writer = NO_ONE };

	if (!steps_ok(&r, &r.t))
		return 0;
	/* Two events a step: its call and its return. */
	r.events = kcalloc(2 * r.t.nsteps, sizeof(*r.events), GFP_KERNEL);
	if (!r.events)
		return -ENOMEM;
	if (run_refused(&r, &r.t, armed)) {
		kfree(r.events);
		return 0;
	}
	trace_rwlock_begin(name, r.t.nsteps, num_online_cpus());
	run_actors(&r, &r.t);
	trace_rwlock_end(r.nevents, r.t.error != NULL);
	report(&r);
	kfree(r.events);
	return 0;
}


/*
 * A refused step is reported on the event channel, at start.  Failing
 * the load would make busybox's insmod retry with init_module().
 */
static int __init rwlock_scenario_init(void)
{
	armed = trace_events_on("capture_rwlock");
	return 0;
}

static void __exit rwlock_scenario_exit(void)
{
}

module_init(rwlock_scenario_init);
module_exit(rwlock_scenario_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run a rwlock_t scenario and report its calls and returns");
