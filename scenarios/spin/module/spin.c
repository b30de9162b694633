// SPDX-License-Identifier: GPL-2.0
/*
 * spin: run a two-actor scenario on one real spinlock_t and report, on the
 * QEMU debug console (port 0xe9), what the lock did.
 *
 * The scenario comes as a module parameter, two characters a step (actor
 * digit, op letter: l = spin_lock, t = spin_trylock, r = spin_unlock), so a
 * new scenario file needs no rebuild.
 *
 * At one CPU, one kthread acts for both actors: two threads handing the
 * lock over would have to sleep with it held.  So a lock on a held lock
 * cannot run there and is refused.  At two CPUs (cpus=2), each actor is a
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
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/io.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/trace_events.h>
#include <asm/qspinlock.h>

#include "module-start.h"

#define CREATE_TRACE_POINTS
#include "spin-trace.h"

#define DEBUGCON_PORT 0xe9
#define ACTORS 2
#define NO_STEP SIZE_MAX
/* How long a holder waits for its waiter to show up in the slow path. */
#define SLOWPATH_WAIT_NS (2000 * NSEC_PER_MSEC)

/*
 * Not charp: that stops at 1024 bytes; the kernel command line does not.
 * steps, name and stop are writable: a module loaded without steps waits
 * for them and a write to start (a guest restored from a snapshot gets
 * its scenario after the module was loaded).
 */
static char steps[2048];
module_param_string(steps, steps, sizeof(steps), 0644);
MODULE_PARM_DESC(steps, "scenario: actor digit + op letter (l/t/r) per step");
static char *name = "";
module_param(name, charp, 0644);
MODULE_PARM_DESC(name, "scenario name for the BEGIN marker");
static int cpus = 1;
module_param(cpus, int, 0444);
MODULE_PARM_DESC(cpus, "1: one kthread for both actors; 2: one per CPU");
/* The host's fault tests: a guest that stops printing midway. */
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

/*
 * The scenario's shared state.  Only the thread whose turn it is (or the
 * waiter during a hand-over) writes events and holder; turn and handoff
 * are published with release/acquire so the next one sees those writes.
 */
struct run {
	size_t nsteps;
	struct event *events;
	size_t nevents;
	int holder;		/* actor that took the lock, -1 if none */
	int waiter;		/* actor spinning in spin_lock, -1 if none */
	int handoff;		/* the waiter may record its AcquireSuccess */
	size_t turn;		/* step to run next; nsteps: done or aborted */
	/* preempt_disable()s of an actor's acquires no unlock of its undid */
	int owed[ACTORS];
	int deadlocked;		/* actor spinning on the lock it holds, or -1 */
	bool ended;		/* spin_end traced (by a deadlock's observer) */
	const char *error;
	size_t failed_step;	/* NO_STEP: the run failed as a whole */
};

struct actor_thread {
	struct run *run;
	unsigned int actors;	/* bit mask of the actors it acts for */
	struct completion done;
};

static int step_actor(size_t i)
{
	return steps[2 * i] - '0';
}

static void record(struct run *r, int actor, enum action a, int locked)
{
	struct event *e = &r->events[r->nevents++];

	e->actor = actor;
	e->action = a;
	e->locked = locked;
	trace_spin_op(r->nevents - 1, actor, a, locked, &the_lock);
}

static void next_turn(struct run *r, size_t i)
{
	smp_store_release(&r->turn, i + 1);
}

/*
 * Can @actor spin at step @i until the holder lets go?  Only at two CPUs,
 * and only if the holder's release comes before @actor's next step.
 */
static const char *cannot_block(const struct run *r, size_t i, int actor)
{
	size_t j;

	if (cpus == 1)
		return "lock on a held lock would spin forever at one CPU";
	for (j = i + 1; j < r->nsteps; j++) {
		if (step_actor(j) == actor)
			break;
		if (steps[2 * j + 1] == 'r')
			return NULL;
	}
	return "lock on a held lock that is not released before this actor's next step";
}

/* Spin in spin_lock until the holder releases, then record after it. */
static void lock_blocking(struct run *r, size_t i, int actor)
{
	record(r, actor, TRY_ACQUIRE_BLOCKING, 1);
	WRITE_ONCE(r->waiter, actor);
	next_turn(r, i);
	spin_lock(&the_lock);
	while (!smp_load_acquire(&r->handoff) &&
	       smp_load_acquire(&r->turn) < r->nsteps)
		cpu_relax();
	record(r, actor, ACQUIRE_SUCCESS, spin_is_locked(&the_lock));
	r->holder = actor;
	r->owed[actor]++;
	atomic_set(&in_slowpath, 0);
	WRITE_ONCE(r->waiter, -1);
	smp_store_release(&r->handoff, 0);
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
	if (i != r->nsteps - 1)
		return "lock by the actor holding it never returns: it must be "
		       "the scenario's last step";
	record(r, actor, TRY_ACQUIRE_BLOCKING, 1);
	smp_store_release(&r->deadlocked, actor);
	next_turn(r, i);
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
	next_turn(r, i);
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
	next_turn(r, i);
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
	int waiting = READ_ONCE(r->waiter) >= 0;

	if (waiting && trace)
		wait_for_spinner();
	unlock(r, actor);
	r->holder = -1;
	/*
	 * A waiting CPU takes the lock at once; the state after the unlock
	 * is then the unlock's own result, not a racy read.
	 */
	record(r, actor, RELEASE, !waiting && spin_is_locked(&the_lock));
	if (waiting) {
		smp_store_release(&r->handoff, 1);
		while (smp_load_acquire(&r->handoff))
			cpu_relax();
	}
	next_turn(r, i);
	return NULL;
}

static const char *step(struct run *r, size_t i)
{
	int actor = step_actor(i);

	switch (steps[2 * i + 1]) {
	case 'l':
		return lock(r, i, actor);
	case 't':
		return try(r, i, actor);
	case 'r':
		return release(r, i, actor);
	}
	return "unknown op";
}

/* Wait for step @i's turn; false if the run ended (an error elsewhere). */
static bool wait_turn(struct run *r, size_t i)
{
	size_t t;

	while ((t = smp_load_acquire(&r->turn)) != i) {
		if (t > i)
			return false;
		cpu_relax();
	}
	return true;
}

static void abort_run(struct run *r, size_t i, const char *why)
{
	r->error = why;
	r->failed_step = i;
	smp_store_release(&r->turn, r->nsteps);
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
 * After the last step: leave the lock free (never exit holding it) and
 * pay back what preemption the thread's actors still owe.
 */
static void leave(struct run *r, struct actor_thread *th)
{
	int a;

	if (r->holder >= 0 && (th->actors & (1u << r->holder))) {
		r->holder = -1;
		do_raw_spin_unlock(&the_lock.rlock);
	}
	for (a = 0; a < ACTORS; a++) {
		if (!(th->actors & (1u << a)))
			continue;
		for (; r->owed[a]; r->owed[a]--)
			preempt_enable();
	}
}

static int actor_main(void *arg)
{
	struct actor_thread *th = arg;
	struct run *r = th->run;
	const char *why;
	size_t i;

	for (i = 0; i < r->nsteps; i++) {
		if (!(th->actors & (1u << step_actor(i))))
			continue;
		if (!wait_turn(r, i))
			break;
		why = step(r, i);
		if (why) {
			abort_run(r, i, why);
			break;
		}
	}
	wait_turn(r, r->nsteps);
	if (smp_load_acquire(&r->deadlocked) >= 0 &&
	    !(th->actors & (1u << r->deadlocked)))
		end_deadlock(r);
	leave(r, th);
	/* Exit without returning into module text that may be unloaded. */
	kthread_complete_and_exit(&th->done, 0);
}

static void debugcon_write(const char *s, size_t len)
{
	while (len--)
		outb(*s++, DEBUGCON_PORT);
}

static void debugcon_printf(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	debugcon_write(line, len);
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
	if (midway)
		return;
	if (r->error && r->failed_step == NO_STEP)
		debugcon_printf("CAPTURE ERROR %s\n", r->error);
	else if (r->error)
		debugcon_printf("CAPTURE ERROR step %zu: %s\n",
				r->failed_step, r->error);
	else
		debugcon_printf("CAPTURE END %zu\n", r->nevents);
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
	if (trace_set_clr_event("capture_spin", NULL, 1) ||
	    trace_set_clr_event("lock", "contention_begin", 1) ||
	    trace_set_clr_event("lock", "contention_end", 1))
		return "cannot enable the trace events";
	if (register_kretprobe(&slowpath_probe))
		return "cannot probe native_queued_spin_lock_slowpath";
	return NULL;
}

/* Tracing armed at load ("" once armed), or why it could not be; NULL before. */
static const char *armed;

/*
 * Create the actors' threads, one per CPU and bound to it, and start them
 * only once all exist.  Returns how many run.
 */
static int start_threads(struct run *r, struct actor_thread *th)
{
	struct task_struct *t[ACTORS];
	int k;

	for (k = 0; k < cpus; k++) {
		th[k].run = r;
		th[k].actors = cpus == 1 ? (1u << ACTORS) - 1 : 1u << k;
		init_completion(&th[k].done);
		t[k] = kthread_create(actor_main, &th[k], "spin-actor%d", k);
		if (IS_ERR(t[k])) {
			while (k--)
				kthread_stop(t[k]);
			r->error = "cannot create the actor threads";
			return 0;
		}
		kthread_bind(t[k], k);
	}
	for (k = 0; k < cpus; k++)
		wake_up_process(t[k]);
	return cpus;
}

/* Every step is an actor digit and an op letter; NULL if so. */
static const char *malformed(size_t n, size_t *at)
{
	for (*at = 0; *at < n; (*at)++) {
		if (steps[2 * *at] != '0' && steps[2 * *at] != '1')
			return "actor is not 0 or 1";
		if (!strchr("ltr", steps[2 * *at + 1]) || !steps[2 * *at + 1])
			return "op is not l, t or r";
	}
	return NULL;
}

/* Run the scenario in steps and report it; 0, or -ENOMEM. */
static int run_scenario(void)
{
	struct actor_thread th[ACTORS];
	struct run r = { .holder = -1, .waiter = -1, .deadlocked = -1 };
	size_t len = strlen(steps);
	int k, started;

	if (len == 0 || len % 2 || (cpus != 1 && cpus != 2) ||
	    cpus > num_online_cpus()) {
		debugcon_printf("CAPTURE ERROR bad parameters: %zu step characters, "
				"cpus=%d of %u online\n", len, cpus,
				num_online_cpus());
		return 0;
	}
	r.nsteps = len / 2;
	r.error = malformed(r.nsteps, &r.failed_step);
	if (r.error) {
		report(&r);
		return 0;
	}
	/* At most two events a step. */
	r.events = kcalloc(len, sizeof(*r.events), GFP_KERNEL);
	if (!r.events)
		return -ENOMEM;
	if (trace && !armed)
		armed = arm_tracing() ?: "";
	r.error = trace && *armed ? armed : NULL;
	if (r.error) {
		r.failed_step = NO_STEP;
		report(&r);
		kfree(r.events);
		return 0;
	}
	if (trace)
		trace_spin_begin(name, r.nsteps, num_online_cpus(),
				 boot_cpu_has(X86_FEATURE_HYPERVISOR), pv_slowpath());
	started = start_threads(&r, th);
	for (k = 0; k < started; k++)
		wait_for_completion(&th[k].done);
	if (!r.ended)
		trace_spin_end(r.nevents, r.error != NULL);
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
