/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every scenario module does around its own lock (qemu/guest.h,
 * module guests): the scenario's parameters, two actors taking turns on a
 * step counter (the writer of start acting for both at one CPU, a kthread
 * pinned to each CPU at two), the hand-over of the lock to an actor that waits in it, the
 * checks of the steps, the debug console's framing and the trace events
 * each arms.  Built into each module with its own sources
 * (qemu/module-guest.c).
 *
 * The including module defines, before including it:
 *	STEP_OPS	its op letters, as a string ("ltr")
 *	BAD_OP		why a step whose op is none of them is refused
 * and, after, its struct run (the state of its lock, with a struct turns
 * that it passes along with the run) and the functions declared below:
 * step(), leave(), report().
 */
#ifndef MODULE_ACTORS_H
#define MODULE_ACTORS_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/trace_events.h>

#define DEBUGCON_PORT 0xe9
#define ACTORS 2
#define NO_ONE (-1)
#define NO_STEP SIZE_MAX

/*
 * Not charp: that stops at 1024 bytes; the kernel command line does not.
 * steps and name are writable: a module loaded without steps waits for
 * them and a write to start (module-start.h: a guest restored from a
 * snapshot gets its scenario after the module was loaded).
 */
static char steps[2048];
module_param_string(steps, steps, sizeof(steps), 0644);
MODULE_PARM_DESC(steps,
		 "scenario: actor digit + op letter (one of " STEP_OPS ") per step");
static char *name = "";
module_param(name, charp, 0644);
MODULE_PARM_DESC(name, "scenario name for the BEGIN marker");
static int cpus = 1;
module_param(cpus, int, 0444);
MODULE_PARM_DESC(cpus, "1: the writer of start acts for both actors; 2: a kthread per CPU");

/*
 * Whose turn it is.  Only the thread whose turn it is (or the waiter
 * during a hand-over) writes the run's events and state; turn and handoff
 * are published with release/acquire so the next one sees those writes.
 */
struct turns {
	size_t nsteps;
	size_t turn;		/* step to run next; nsteps: done or aborted */
	int waiter;		/* actor waiting in a lock call, NO_ONE if none */
	int handoff;		/* the waiter may record its return */
	const char *error;
	size_t failed_step;	/* NO_STEP: the run failed as a whole */
};

struct run;

/* Step @i of @r: NULL, or why it cannot run (the run is then aborted). */
static const char *step(struct run *r, size_t i);
/* After the last step, by each thread for the actors it acts for. */
static void leave(struct run *r, unsigned int actors);
/* The run's events and verdict on the debug console. */
static void report(const struct run *r);

struct actor_thread {
	struct run *run;
	struct turns *t;
	unsigned int actors;	/* bit mask of the actors it acts for */
	struct completion done;
};

static inline int step_actor(size_t i)
{
	return steps[2 * i] - '0';
}

static inline char step_op(size_t i)
{
	return steps[2 * i + 1];
}

static inline void next_turn(struct turns *t, size_t i)
{
	smp_store_release(&t->turn, i + 1);
}

/*
 * Does an actor other than @actor unlock (an op of @unlocks) after step @i
 * and before @actor's next step?  Only then may @actor wait at step @i.
 */
static inline bool unlocked_before_next(const struct turns *t, size_t i,
					int actor, const char *unlocks)
{
	size_t j;

	for (j = i + 1; j < t->nsteps; j++) {
		if (step_actor(j) == actor)
			break;
		if (strchr(unlocks, step_op(j)))
			return true;
	}
	return false;
}

/*
 * The hand-over of a held lock to @actor waiting in its lock call: it
 * records its call, gives the turn to the holder (wait_begin()) and calls
 * the lock; once in, it waits for the holder's unlock to be recorded
 * (wait_handoff()), records its own return, then lets the holder go on
 * (wait_end()).  The holder, at its unlock, sees a waiter (has_waiter()),
 * unlocks, records it and hands over (hand_over()).
 */
static inline void wait_begin(struct turns *t, size_t i, int actor)
{
	WRITE_ONCE(t->waiter, actor);
	next_turn(t, i);
}

static inline void wait_handoff(struct turns *t)
{
	while (!smp_load_acquire(&t->handoff) &&
	       smp_load_acquire(&t->turn) < t->nsteps)
		cpu_relax();
}

static inline void wait_end(struct turns *t)
{
	WRITE_ONCE(t->waiter, NO_ONE);
	smp_store_release(&t->handoff, 0);
}

static inline bool has_waiter(const struct turns *t)
{
	return READ_ONCE(t->waiter) != NO_ONE;
}

static inline void hand_over(struct turns *t)
{
	smp_store_release(&t->handoff, 1);
	while (smp_load_acquire(&t->handoff))
		cpu_relax();
}

/* Wait for step @i's turn; false if the run ended (an error elsewhere). */
static inline bool wait_turn(struct turns *t, size_t i)
{
	size_t now;

	while ((now = smp_load_acquire(&t->turn)) != i) {
		if (now > i)
			return false;
		cpu_relax();
	}
	return true;
}

static inline void abort_run(struct turns *t, size_t i, const char *why)
{
	t->error = why;
	t->failed_step = i;
	smp_store_release(&t->turn, t->nsteps);
}

/* Run @th's actors' steps, then leave the run. */
static inline void act(struct actor_thread *th)
{
	struct turns *t = th->t;
	const char *why;
	size_t i;

	for (i = 0; i < t->nsteps; i++) {
		if (!(th->actors & (1u << step_actor(i))))
			continue;
		if (!wait_turn(t, i))
			break;
		why = step(th->run, i);
		if (why) {
			abort_run(t, i, why);
			break;
		}
	}
	wait_turn(t, t->nsteps);
	leave(th->run, th->actors);
}

static inline int actor_main(void *arg)
{
	struct actor_thread *th = arg;

	act(th);
	/* Exit without returning into module text that may be unloaded. */
	kthread_complete_and_exit(&th->done, 0);
}

/*
 * Create the actors' threads, one per CPU and bound to it, and start them
 * only once all exist.  Returns how many to wait for.  At one CPU the
 * caller (the writer of start) acts for both actors itself: a thread would
 * add nothing but its creation and exit, code that a guest restored under
 * TCG translates anew (~170 translation blocks, docs/results/spin.md).
 */
static inline int start_threads(struct run *r, struct turns *t,
				struct actor_thread *th)
{
	struct task_struct *task[ACTORS];
	int k;

	if (cpus == 1) {
		th[0].run = r;
		th[0].t = t;
		th[0].actors = (1u << ACTORS) - 1;
		act(&th[0]);
		return 0;
	}
	for (k = 0; k < cpus; k++) {
		th[k].run = r;
		th[k].t = t;
		th[k].actors = 1u << k;
		init_completion(&th[k].done);
		task[k] = kthread_create(actor_main, &th[k],
					 KBUILD_MODNAME "-actor%d", k);
		if (IS_ERR(task[k])) {
			while (k--)
				kthread_stop(task[k]);
			t->error = "cannot create the actor threads";
			return 0;
		}
		kthread_bind(task[k], k);
	}
	for (k = 0; k < cpus; k++)
		wake_up_process(task[k]);
	return cpus;
}

/* Run the actors' threads and wait until all have left. */
static inline void run_actors(struct run *r, struct turns *t)
{
	struct actor_thread th[ACTORS];
	int k, started = start_threads(r, t, th);

	for (k = 0; k < started; k++)
		wait_for_completion(&th[k].done);
}

static inline __printf(1, 2) void debugcon_printf(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int len, k;

	va_start(ap, fmt);
	len = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (k = 0; k < len; k++)
		outb(line[k], DEBUGCON_PORT);
}

/* The report's last line: why the run was refused, or its END. */
static inline void report_end(const struct turns *t, size_t nevents)
{
	if (t->error && t->failed_step == NO_STEP)
		debugcon_printf("CAPTURE ERROR %s\n", t->error);
	else if (t->error)
		debugcon_printf("CAPTURE ERROR step %zu: %s\n", t->failed_step,
				t->error);
	else
		debugcon_printf("CAPTURE END %zu\n", nevents);
}

/* Every step is an actor digit and an op letter; NULL if so. */
static inline const char *malformed(size_t n, size_t *at)
{
	for (*at = 0; *at < n; (*at)++) {
		if (steps[2 * *at] != '0' && steps[2 * *at] != '1')
			return "actor is not 0 or 1";
		if (!step_op(*at) || !strchr(STEP_OPS, step_op(*at)))
			return BAD_OP;
	}
	return NULL;
}

/*
 * The steps of @t checked before a run; false if it cannot start, with
 * the refusal reported (bad parameters here, a malformed step by report()).
 */
static inline bool steps_ok(const struct run *r, struct turns *t)
{
	size_t len = strlen(steps);

	if (len == 0 || len % 2 || (cpus != 1 && cpus != 2) ||
	    cpus > num_online_cpus()) {
		debugcon_printf("CAPTURE ERROR bad parameters: %zu step characters, "
				"cpus=%d of %u online\n", len, cpus,
				num_online_cpus());
		return false;
	}
	t->nsteps = len / 2;
	t->waiter = NO_ONE;
	t->error = malformed(t->nsteps, &t->failed_step);
	if (t->error)
		report(r);
	return !t->error;
}

/*
 * Refuse the run as a whole for @why (its tracing is not armed), unless
 * @why is NULL: reported; true if refused.
 */
static inline bool run_refused(const struct run *r, struct turns *t,
			       const char *why)
{
	t->error = why;
	if (why) {
		t->failed_step = NO_STEP;
		report(r);
	}
	return why != NULL;
}

/*
 * The module's own trace events (trace system @system) and the kernel's
 * lock:contention_* into the ring buffer; NULL or why not.
 */
static inline const char *trace_events_on(const char *system)
{
	if (trace_set_clr_event(system, NULL, 1) ||
	    trace_set_clr_event("lock", "contention_begin", 1) ||
	    trace_set_clr_event("lock", "contention_end", 1))
		return "cannot enable the trace events";
	return NULL;
}

#endif
