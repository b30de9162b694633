// SPDX-License-Identifier: GPL-2.0
/*
 * spin: run a two-actor scenario on one real spinlock_t and report, on the
 * QEMU debug console (port 0xe9), what the lock did.
 *
 * The scenario comes as a module parameter, two characters a step (actor
 * digit, op letter: l = spin_lock, t = spin_trylock, r = spin_unlock), so a
 * new scenario file needs no rebuild.
 *
 * At one CPU, the thread that writes start acts for both actors: two
 * threads handing the lock over would have to sleep with it held.  So a
 * lock on a held lock cannot run there and is refused.  At two CPUs (cpus=2), each actor is a
 * kthread pinned to its CPU; they take turns on a step counter, and a lock
 * on a held lock really spins until the holder's release.  A lock by the
 * holder, as the last step, really deadlocks: the other CPU sees it spin
 * in the slow path, ends the run, and only then frees it.
 *
 * spin_unlock() checks no owner: a release by the actor that does not hold
 * the lock, or of a free lock, is run as the kernel runs it (the lock
 * word's store), and each actor's preemption is balanced apart (owed[]).
 *
 * Events go to a buffer during the scenario and are written after it, so
 * nothing is printed inside a critical section.  Output, one line each:
 *	CAPTURE BEGIN <name>
 *	{"seq":N,"thread":T,"lock":0,"state":"locked|unlocked","action":A,"actor":T}
 *	CAPTURE END <number of events>
 * or, instead of END, "CAPTURE ERROR step N: <why>" when a step cannot be
 * executed (the module still loads: the host reads the verdict here).
 *
 * The same events also go, as they happen, into the kernel's ftrace ring
 * buffer as capture_spin:spin_op (spin-trace.h), framed by spin_begin and
 * spin_end, with what a kretprobe on native_queued_spin_lock_slowpath saw
 * of this lock (spin_slowpath): the evidence that a lock() really spun.
 * The guest ships the raw ring-buffer pages to the host after the run.
 */
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <asm/qspinlock.h>

#include "module-start.h"

#define STEP_OPS "ltr"
#define BAD_OP "op is not l, t or r"
#include "module-actors.h"

#define CREATE_TRACE_POINTS
#include "spin-trace.h"

/* How long a holder waits for its waiter to show up in the slow path. */
#define SLOWPATH_WAIT_NS (2000 * NSEC_PER_MSEC)

/*
 * The host's fault tests: a guest that stops printing midway (writable, as
 * steps and name are: module-actors.h).
 */
static char *stop = "";
module_param(stop, charp, 0644);
MODULE_PARM_DESC(stop, "midway: report half the events and no END; "
		 "midway-hang: the same, then never return");
static bool trace = true;
module_param(trace, bool, 0444);
MODULE_PARM_DESC(trace, "events into the ftrace ring buffer too, the slow path probed");

enum action {
	TRY_ACQUIRE_BLOCKING,
	TRY_ACQUIRE_NON_BLOCKING,
	ACQUIRE_SUCCESS,
	ACQUIRE_FAIL,
	RELEASE,
};

static const char *const action_names[] = {
	[TRY_ACQUIRE_BLOCKING] = "TryAcquireBlocking",
	[TRY_ACQUIRE_NON_BLOCKING] = "TryAcquireNonBlocking",
	[ACQUIRE_SUCCESS] = "AcquireSuccess",
	[ACQUIRE_FAIL] = "AcquireFail",
	[RELEASE] = "Release",
};

struct event {
	u8 actor;
	u8 action;
	u8 locked;	/* the lock's state observed at the event */
};

static DEFINE_SPINLOCK(the_lock);
/* The kretprobe saw a CPU enter the slow path of the_lock. */
static atomic_t in_slowpath;

/* The scenario's state, written by the actor whose turn it is (t). */
struct run {
	struct turns t;
	struct event *events;
	size_t nevents;
	int holder;		/* actor that took the lock, -1 if none */
	/* preempt_disable()s of an actor's acquires no unlock of its undid */
	int owed[ACTORS];
	int deadlocked;		/* actor spinning on the lock it holds, or -1 */
	bool ended;		/* spin_end traced (by a deadlock's observer) */
};

static void record(struct run *r, int actor, enum action a, int locked)
{
	struct event *e = &r->events[r->nevents++];

	e->actor = actor;
	e->action = a;
	e->locked = locked;
	trace_spin_op(r->nevents - 1, actor, a, locked, &the_lock);
}

/*
 * Can @actor spin at step @i until the holder lets go?  Only at two CPUs,
 * and only if the holder's release comes before @actor's next step.
 */
static const char *cannot_block(const struct run *r, size_t i, int actor)
{
	if (cpus == 1)
		return "lock on a held lock would spin forever at one CPU";
	if (unlocked_before_next(&r->t, i, actor, "r"))
		return NULL;
	return "lock on a held lock that is not released before this actor's next step";
}

/* Spin in spin_lock until the holder releases, then record after it. */
static void lock_blocking(struct run *r, size_t i, int actor)
{
	record(r, actor, TRY_ACQUIRE_BLOCKING, 1);
	wait_begin(&r->t, i, actor);
	spin_lock(&the_lock);
	wait_handoff(&r->t);
	record(r, actor, ACQUIRE_SUCCESS, spin_is_locked(&the_lock));
	r->holder = actor;
	r->owed[actor]++;
	atomic_set(&in_slowpath, 0);
	wait_end(&r->t);
}

/*
 * A lock by the holder: it spins on its own lock for good.  The other CPU
 * ends the run (end_deadlock()); the call returns only once the run is
 * over and nothing more is recorded.
 */
static const char *self_deadlock(struct run *r, size_t i, int actor)
{
	if (cpus == 1)
		return "lock by the actor holding it would spin forever at one "
		       "CPU, with no other CPU to end the run";
	if (i != r->t.nsteps - 1)
		return "lock by the actor holding it never returns: it must be "
		       "the scenario's last step";
	record(r, actor, TRY_ACQUIRE_BLOCKING, 1);
	smp_store_release(&r->deadlocked, actor);
	next_turn(&r->t, i);
	spin_lock(&the_lock);
	r->owed[actor]++;
	return NULL;
}

static const char *lock(struct run *r, size_t i, int actor)
{
	const char *why;

	if (r->holder == actor)
		return self_deadlock(r, i, actor);
	if (spin_is_locked(&the_lock)) {
		why = cannot_block(r, i, actor);
		if (!why)
			lock_blocking(r, i, actor);
		return why;
	}
	record(r, actor, TRY_ACQUIRE_BLOCKING, 0);
	spin_lock(&the_lock);
	record(r, actor, ACQUIRE_SUCCESS, spin_is_locked(&the_lock));
	r->holder = actor;
	r->owed[actor]++;
	next_turn(&r->t, i);
	return NULL;
}

static const char *try(struct run *r, size_t i, int actor)
{
	record(r, actor, TRY_ACQUIRE_NON_BLOCKING, spin_is_locked(&the_lock));
	if (spin_trylock(&the_lock)) {
		record(r, actor, ACQUIRE_SUCCESS, 1);
		r->holder = actor;
		r->owed[actor]++;
	} else {
		record(r, actor, ACQUIRE_FAIL, spin_is_locked(&the_lock));
	}
	next_turn(&r->t, i);
	return NULL;
}

/*
 * A waiter about to call spin_lock() on the held lock: let it get into the
 * kernel's slow path before the release, so that its lock() really spins.
 * Bounded: if the kretprobe never sees it (another slow path, a missing
 * probe), the run goes on and the host finds no slow-path evidence.
 */
static void wait_for_spinner(void)
{
	u64 until = ktime_get_ns() + SLOWPATH_WAIT_NS;

	while (!atomic_read(&in_slowpath) && ktime_get_ns() < until)
		cpu_relax();
}

/*
 * spin_unlock() by @actor, whoever holds the lock: the lock word's store,
 * which checks no owner, and the preempt_enable() of one of @actor's own
 * acquires, if it has one left.  An unlock by another CPU would otherwise
 * drive that CPU's preempt count below zero and leave the holder's CPU
 * non-preemptible; the holder pays its own at its next unlock or at the
 * end of the run.
 */
static void unlock(struct run *r, int actor)
{
	do_raw_spin_unlock(&the_lock.rlock);
	if (r->owed[actor]) {
		r->owed[actor]--;
		preempt_enable();
	}
}

static const char *release(struct run *r, size_t i, int actor)
{
	bool waiting = has_waiter(&r->t);

	if (waiting && trace)
		wait_for_spinner();
	unlock(r, actor);
	r->holder = -1;
	/*
	 * A waiting CPU takes the lock at once; the state after the unlock
	 * is then the unlock's own result, not a racy read.
	 */
	record(r, actor, RELEASE, !waiting && spin_is_locked(&the_lock));
	if (waiting)
		hand_over(&r->t);
	next_turn(&r->t, i);
	return NULL;
}

static const char *step(struct run *r, size_t i)
{
	int actor = step_actor(i);

	switch (step_op(i)) {
	case 'l':
		return lock(r, i, actor);
	case 't':
		return try(r, i, actor);
	case 'r':
		return release(r, i, actor);
	}
	return "unknown op";
}

/*
 * The other actor spins on the lock it holds: once the kretprobe has seen
 * it in the slow path, the run is over.  Tracing stops before the lock is
 * freed under it, so that what follows (its slow path returning, its
 * cleanup) is not part of the run.
 */
static void end_deadlock(struct run *r)
{
	if (trace)
		wait_for_spinner();
	trace_spin_end(r->nevents, 0);
	r->ended = true;
	tracing_off();
	do_raw_spin_unlock(&the_lock.rlock);
}

/*
 * After the last step: end the other actor's deadlock, leave the lock
 * free (never exit holding it) and pay back what preemption the thread's
 * actors still owe.
 */
static void leave(struct run *r, unsigned int actors)
{
	int a;

	if (smp_load_acquire(&r->deadlocked) >= 0 &&
	    !(actors & (1u << r->deadlocked)))
		end_deadlock(r);
	if (r->holder >= 0 && (actors & (1u << r->holder))) {
		r->holder = -1;
		do_raw_spin_unlock(&the_lock.rlock);
	}
	for (a = 0; a < ACTORS; a++) {
		if (!(actors & (1u << a)))
			continue;
		for (; r->owed[a]; r->owed[a]--)
			preempt_enable();
	}
}

static void report(const struct run *r)
{
	int midway = !strcmp(stop, "midway") || !strcmp(stop, "midway-hang");
	size_t i, shown = midway ? r->nevents / 2 : r->nevents;

	debugcon_printf("CAPTURE BEGIN %s\n", name);
	for (i = 0; i < shown; i++) {
		const struct event *e = &r->events[i];

		debugcon_printf("{\"seq\":%zu,\"thread\":%u,\"lock\":0,"
				"\"state\":\"%s\",\"action\":\"%s\","
				"\"actor\":%u}\n",
				i, e->actor, e->locked ? "locked" : "unlocked",
				action_names[e->action], e->actor);
	}
	while (midway && !strcmp(stop, "midway-hang"))
		msleep(1000);
	if (!midway)
		report_end(&r->t, r->nevents);
}

/* Entry of the slow path: only the_lock's (the first argument) is traced. */
static int slowpath_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs->di != (unsigned long)&the_lock)
		return 1;	/* no return event for other locks */
	trace_spin_slowpath(0, &the_lock, regs->si);
	atomic_set(&in_slowpath, 1);
	return 0;
}

static int slowpath_exit(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	trace_spin_slowpath(1, &the_lock, 0);
	return 0;
}

static struct kretprobe slowpath_probe = {
	.kp.symbol_name = "native_queued_spin_lock_slowpath",
	.entry_handler = slowpath_entry,
	.handler = slowpath_exit,
	.maxactive = 2 * ACTORS,
};

/* Does the kernel take a paravirtual slow path instead of the native one? */
static bool pv_slowpath(void)
{
	return pv_ops.lock.queued_spin_lock_slowpath !=
	       native_queued_spin_lock_slowpath;
}

/*
 * Our events and the kernel's lock:contention_* into the ring buffer, and
 * the probe on the slow path; NULL or why not (the run is then refused:
 * without them the trace channel cannot say whether a lock() spun).
 */
static const char *arm_tracing(void)
{
	const char *why = trace_events_on("capture_spin");

	if (why)
		return why;
	if (register_kretprobe(&slowpath_probe))
		return "cannot probe native_queued_spin_lock_slowpath";
	return NULL;
}

/* Tracing armed at load ("" once armed), or why it could not be; NULL before. */
static const char *armed;

/* Run the scenario in steps and report it; 0, or -ENOMEM. */
static int run_scenario(void)
{
	struct run r = { .holder = -1, .deadlocked = -1 };

	if (!steps_ok(&r, &r.t))
		return 0;
	/* At most two events a step. */
	r.events = kcalloc(2 * r.t.nsteps, sizeof(*r.events), GFP_KERNEL);
	if (!r.events)
		return -ENOMEM;
	if (trace && !armed)
		armed = arm_tracing() ?: "";
	if (run_refused(&r, &r.t, trace && *armed ? armed : NULL)) {
		kfree(r.events);
		return 0;
	}
	if (trace)
		trace_spin_begin(name, r.t.nsteps, num_online_cpus(),
				 boot_cpu_has(X86_FEATURE_HYPERVISOR), pv_slowpath());
	run_actors(&r, &r.t);
	if (!r.ended)
		trace_spin_end(r.nevents, r.t.error != NULL);
	report(&r);
	kfree(r.events);
	return 0;
}


/*
 * With steps: run them now.  Without: arm the tracing and wait for a
 * write to start (the scenario's parameters written first).
 */
static int __init spin_init(void)
{
	/*
	 * A refused step is reported on the event channel.  Failing the
	 * load would make busybox's insmod retry with init_module() and run
	 * it all again.
	 */
	if (*steps)
		return run_scenario();
	if (trace)
		armed = arm_tracing() ?: "";
	return 0;
}

/*
 * The slow path's probe stays registered after the run (its entry ignores
 * other locks) and goes with the module: unregistering it rewrites kernel
 * text, which a guest restored under TCG pays for with code translated
 * again, and the guest ends right after the run.
 */
static void __exit spin_exit(void)
{
	if (armed && !*armed)
		unregister_kretprobe(&slowpath_probe);
}

module_init(spin_init);
module_exit(spin_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run a spinlock scenario and report the lock's events");
