// SPDX-License-Identifier: MIT
/*
 * Booting guests: the attempts of each boot (attempt.c: one QEMU each)
 * run side by side, the accelerator chosen by a guest that showed life,
 * snapshots saved and restored, one retry, several guests at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "accel.h"
#include "attempt.h"
#include "boot.h"
#include "cache.h"
#include "guest.h"
#include "snapshot.h"

/* How often guests are looked at. */
#define POLL_US 20000
/* /init's line once it waits for its words from fw_cfg (qemu/init). */
#define READY_MARKER "capture-guest: ready"
/* /init's line once a restored guest has its words (qemu/init). */
#define RESTORED_MARKER "capture-guest: restored"

/* Every attempt running now. */
struct guests {
	struct attempt *a;
	size_t n, alloc;
	char *last_run;       /* the cache's last-run/, with its '/' */
	struct cap_err *err;  /* why the capture failed, once @failed */
	int failed;           /* every guest is stopped then (stop_all()) */
};

/* Keep @path as last-run/NAME.SUFFIX: the newest run's, whole. */
static void keep_log(const struct guests *g, const char *path, const char *name,
		     const char *suffix)
{
	char *final = xasprintf("%s%s.%s", g->last_run, name, suffix);

	if (rename(path, final))
		remove(path);
	free(final);
}

/*
 * What attempt @a of @run under @accel boots: in full (no snapshots, or
 * they failed this run), a restore of the snapshot, or, when there is none
 * yet or the KVM probe races (a snapshot is of one accelerator), a boot
 * to /init's ready point that saves one.  -1 (@g failed) if it cannot
 * prepare one, with nothing of @a left to free.
 */
static int choose_boot(struct guests *g, struct attempt *a, struct boot_run *run,
		       enum accel accel)
{
	char *line, *part, *tmp;

	if (guest_boot() || run->full)
		return 0;
	line = boot_kernel_line(run->b, NULL);
	a->snapshot = snapshot_path(run->b, accel_name(accel), line, a->key, g->err);
	free(line);
	if (!a->snapshot) {
		g->failed = 1;
		return -1;
	}
	if (!a->racing && snapshot_take(a->snapshot))
		return 0;
	/* QEMU's socket path must fit a sockaddr_un: a long $TMPDIR cannot. */
	a->qmp_dir = owned_tmp_in(strlen(temp_dir()) < 64 ? temp_dir() : "/tmp",
				  "capture-qmp");
	a->qmp_cleanup = mkdtemp_on_failure(a->qmp_dir);
	if (a->qmp_cleanup < 0) {
		cap_fail(g->err, EXIT_CAPTURE_FAILED, "cannot create %s: %s",
			 a->qmp_dir, strerror(errno));
		g->failed = 1;
		free(a->qmp_dir);
		a->qmp_dir = NULL;
		free(a->snapshot);
		return -1;
	}
	a->saving = 1;
	/* This process's, of this boot and accelerator: several may save at once. */
	part = snapshot_trace_path(a->snapshot);
	tmp = cache_tmp_name(part);
	a->head = xasprintf("%s.%s.%s", tmp, run->b->name, accel_name(accel));
	a->head_cleanup = remove_on_failure(a->head);
	free(tmp);
	free(part);
	return 0;
}

/* A new attempt of @run, launched; NULL if the capture failed (@g->err). */
static struct attempt *start_attempt(struct guests *g, struct boot_run *run,
				     enum accel accel, int racing)
{
	struct attempt *a;

	if (g->n == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 4;
		g->a = xrealloc(g->a, g->alloc * sizeof(*g->a));
	}
	a = &g->a[g->n++];
	memset(a, 0, sizeof(*a));
	a->run = run;
	a->accel = accel;
	a->racing = racing;
	if (choose_boot(g, a, run, accel)) {
		g->n--;
		return NULL;
	}
	a->events = xasprintf("%s.%s", run->b->events_path, accel_name(accel));
	a->console = xasprintf("%s%s.%ld.%s.console.log", g->last_run,
			       run->b->name, (long)getpid(), accel_name(accel));
	a->qemu_err = xasprintf("%s%s.%ld.%s.qemu.log", g->last_run,
				run->b->name, (long)getpid(), accel_name(accel));
	a->cleanup = remove_on_failure(a->events);
	if (run->b->trace_path) {
		a->trace = xasprintf("%s.%s", run->b->trace_path, accel_name(accel));
		a->trace_cleanup = remove_on_failure(a->trace);
	}
	attempt_launch(a);
	return a;
}

/* Drop g->a[i] (stopped or ended), keeping the others in order. */
static void drop(struct guests *g, size_t i)
{
	cancel_on_failure(g->a[i].cleanup);
	if (g->a[i].trace)
		cancel_on_failure(g->a[i].trace_cleanup);
	if (g->a[i].qmp_dir)
		cancel_on_failure(g->a[i].qmp_cleanup);
	if (g->a[i].head)
		cancel_on_failure(g->a[i].head_cleanup);
	attempt_free(&g->a[i]);
	memmove(&g->a[i], &g->a[i + 1], (g->n - i - 1) * sizeof(*g->a));
	g->n--;
}

/*
 * Forget attempt @i (ended or stopped) and what it wrote to the event
 * channel; its logs stay as last-run/NAME.ACCEL.*.log (a KVM probe's say
 * why it lost).
 */
static void retire(struct guests *g, size_t i)
{
	struct attempt *a = &g->a[i];
	char *console = xasprintf("%s.console.log", accel_name(a->accel));
	char *qemu = xasprintf("%s.qemu.log", accel_name(a->accel));

	attempt_remove_channels(a);
	keep_log(g, a->console, a->run->b->name, console);
	keep_log(g, a->qemu_err, a->run->b->name, qemu);
	free(console);
	free(qemu);
	drop(g, i);
}

static void kill_attempt(struct guests *g, size_t i)
{
	proc_stop(&g->a[i].proc);
	retire(g, i);
}

/* The other attempt of the same boot (the KVM probe's twin), or -1. */
static long twin(const struct guests *g, size_t i)
{
	for (size_t j = 0; j < g->n; j++)
		if (j != i && g->a[j].run == g->a[i].run)
			return (long)j;
	return -1;
}

/* Attempt @i (ended) and the capture fail: its channels go, its logs stay. */
static void fail_attempt(struct guests *g, size_t i)
{
	attempt_remove_channels(&g->a[i]);
	drop(g, i);
	g->failed = 1;
}

static void succeed(struct guests *g, size_t i)
{
	struct attempt *a = &g->a[i];
	const struct guest_boot *b = a->run->b;

	if (!b->boot_only && rename(a->events, b->events_path)) {
		cap_fail(g->err, EXIT_CAPTURE_FAILED, "cannot rename %s to %s",
			 a->events, b->events_path);
		fail_attempt(g, i);
		return;
	}
	/* A restored guest's channel continues what its snapshot's shipped. */
	if (!b->boot_only && a->trace && a->snapshot &&
	    snapshot_join_trace(a->snapshot, a->trace, b->trace_path, g->err)) {
		fail_attempt(g, i);
		return;
	}
	if (!b->boot_only && a->trace && !a->snapshot &&
	    rename(a->trace, b->trace_path)) {
		cap_fail(g->err, EXIT_CAPTURE_FAILED, "cannot rename %s to %s",
			 a->trace, b->trace_path);
		fail_attempt(g, i);
		return;
	}
	attempt_remove_channels(a);
	keep_log(g, a->console, b->name, "console.log");
	keep_log(g, a->qemu_err, b->name, "qemu.log");
	a->run->done = 1;
	a->run->accel = a->accel;
	strcpy(a->run->key, a->snapshot ? a->key : "");
	drop(g, i);
}

/* A failed attempt: retried once (KVM's failure turns the verdict), or fatal. */
static void failed(struct guests *g, size_t i)
{
	struct attempt a = g->a[i];
	struct boot_run *run = a.run;
	enum accel next = a.accel;

	if (a.saving) {
		progress("%s guest: could not save a snapshot: %s; booting in full "
			 "(console log: %s)", run->b->name, a.problem, a.console);
		run->full = 1;
		drop(g, i);
		start_attempt(g, run, next, 0);
		return;
	}
	if (a.snapshot && !attempt_console_says(&a, RESTORED_MARKER)) {
		/* Not the guest's failure: the snapshot's (corrupt, stale). */
		progress("%s guest: its snapshot did not restore: %s; removed %s, "
			 "booting in full (the next capture saves a new one)",
			 run->b->name, a.problem, a.snapshot);
		snapshot_remove(a.snapshot);
		run->full = 1;
		attempt_remove_channels(&a);
		drop(g, i);
		start_attempt(g, run, next, 0);
		return;
	}
	if (++run->tries == 2) {
		cap_fail(g->err, EXIT_CAPTURE_FAILED, "%s guest: %s; console log: %s",
			 run->b->name, a.problem, a.console);
		fail_attempt(g, i);
		return;
	}
	if (a.accel == ACCEL_KVM && accel_demote(a.problem))
		next = ACCEL_TCG;
	progress("%s; retrying once%s (console log: %s)", a.problem,
		 next != a.accel ? " with TCG" : "", a.console);
	attempt_remove_channels(&a);
	drop(g, i);
	start_attempt(g, run, next, 0);
}

/*
 * The KVM probe races a TCG twin of the same boot to the first sign of
 * life: KVM that has shown none by twice the time TCG needed is no use
 * here, whatever the reason (a nested hypervisor that never runs the
 * kernel, one too slow to matter).
 */
static int race(struct guests *g, size_t i, double now)
{
	struct attempt *a = &g->a[i];
	long j = twin(g, i);
	struct attempt *t = j >= 0 ? &g->a[j] : NULL;

	if (!a->racing || a->accel != ACCEL_KVM || !t)
		return 0;
	if (a->life) {
		accel_settle(ACCEL_KVM, "a KVM guest showed life first");
		progress("KVM works: the KVM guest showed life after %.1f s",
			 a->life - a->started);
		a->racing = 0;
		kill_attempt(g, (size_t)j);
		return 1;
	}
	if (t->life && attempt_elapsed(a, now) > 2 * (t->life - t->started)) {
		char *why = xasprintf("a KVM guest showed no life within %.1f s, "
				      "twice what TCG needed to reach /init",
				      attempt_elapsed(a, now));

		progress("KVM is of no use here: %s; using TCG", why);
		accel_settle(ACCEL_TCG, why);
		free(why);
		t->racing = 0;
		kill_attempt(g, i);
		return 1;
	}
	return 0;
}

/* Stop the twin of attempt *@i, if it has one; *@i follows its attempt. */
static void kill_twin(struct guests *g, size_t *i)
{
	long j = twin(g, *i);

	if (j < 0)
		return;
	kill_attempt(g, (size_t)j);
	if ((size_t)j < *i)
		(*i)--;
}

/* A racing attempt ended: what that says of KVM.  1 if it dropped @i. */
static int race_over(struct guests *g, size_t i)
{
	struct attempt *a = &g->a[i];
	long j = twin(g, i);

	if (!a->racing || j < 0)
		return 0;
	g->a[j].racing = 0;
	if (a->accel == ACCEL_KVM && a->problem) {
		/* The probe failed first: the TCG twin goes on. */
		progress("KVM is of no use here: %s; using TCG", a->problem);
		accel_settle(ACCEL_TCG, a->problem);
		retire(g, i);
		return 1;
	}
	if (!a->problem) {
		const char *why = a->accel == ACCEL_KVM ? "a KVM guest finished first" :
				  "a TCG guest finished before a KVM guest showed life";

		progress("%s: using %s", why, accel_name(a->accel));
		accel_settle(a->accel, why);
	}
	return 0;
}

/*
 * Saving attempt @i's guest is ready: saved into its snapshot, which its
 * run then restores.  A racing one has won the KVM probe.
 */
static void saved(struct guests *g, size_t i)
{
	struct attempt *a = &g->a[i];
	struct boot_run *run = a->run;
	enum accel accel = a->accel;
	char *tmp = cache_tmp_name(a->snapshot), *sock = xasprintf("%s/qmp", a->qmp_dir);
	int cleanup = remove_on_failure(tmp);
	char *problem = snapshot_save(&a->proc, sock, tmp);

	race_over(g, i);
	kill_twin(g, &i);
	a = &g->a[i];
	if (problem) {
		progress("%s guest: could not save a snapshot: %s; booting in full "
			 "(console log: %s)", run->b->name, problem, a->console);
		run->full = 1;
		remove(tmp);
	} else if (snapshot_commit(tmp, a->head, a->snapshot, g->err)) {
		remove(tmp);
		g->failed = 1;
	}
	cancel_on_failure(cleanup);
	if (g->failed) {
		fail_attempt(g, i);
	} else {
		keep_log(g, a->console, run->b->name, "snapshot.console.log");
		keep_log(g, a->qemu_err, run->b->name, "snapshot.qemu.log");
		drop(g, i);
		start_attempt(g, run, accel, 0);
	}
	free(problem);
	free(sock);
	free(tmp);
}

/* One look at attempt @i; 1 if the set changed (i no longer names it). */
static int step(struct guests *g, size_t i, double now)
{
	struct attempt *a = &g->a[i];
	struct proc_result r;

	if (race(g, i, now))
		return 1;
	if (a->saving && attempt_console_says(a, READY_MARKER)) {
		saved(g, i);
		return 1;
	}
	if (proc_poll(&a->proc, &r, 0)) {
		attempt_judge(a, r);
	} else if (!(a->problem = attempt_watch(a, now))) {
		return 0;
	} else {
		proc_stop(&a->proc);
	}
	if (race_over(g, i))
		return 1;
	kill_twin(g, &i);
	if (g->a[i].problem)
		failed(g, i);
	else
		succeed(g, i);
	return 1;
}

/* Start @run: as the KVM probe and its TCG twin while no verdict is known. */
static void start_run(struct guests *g, struct boot_run *run)
{
	enum accel accel;
	int known = accel_known(run->b, &accel, g->err);

	if (known < 0) {
		g->failed = 1;
	} else if (known) {
		start_attempt(g, run, accel, 0);
	} else {
		progress("probing KVM: a KVM and a TCG guest race to /init");
		if (start_attempt(g, run, ACCEL_KVM, 1))
			start_attempt(g, run, ACCEL_TCG, 1);
	}
}

/* Another boot may start now: none runs, or the accelerator is known. */
static int may_start(struct guests *g, const struct guest_boot *b)
{
	enum accel accel;
	int known;

	if (!g->n)
		return 1;
	known = accel_known(b, &accel, g->err);
	if (known < 0)
		g->failed = 1;
	return known > 0;
}

/* The capture failed: every guest still running stops, as a die() would. */
static void stop_all(struct guests *g)
{
	while (g->n) {
		proc_stop(&g->a[g->n - 1].proc);
		fail_attempt(g, g->n - 1);
	}
}

static size_t unfinished(const struct boot_run *runs, size_t n)
{
	size_t left = 0;

	for (size_t i = 0; i < n; i++)
		left += !runs[i].done;
	return left;
}

/*
 * "guest_boot": snapshot when every run restored one ("snapshot": its
 * key), else the boot the runs made in full.
 */
static void describe_boot(const struct boot_run *runs, size_t n, cJSON *env)
{
	int boot = guest_boot(), restored = !boot;

	for (size_t i = 0; i < n; i++)
		restored &= !!runs[i].key[0];
	cJSON_DeleteItemFromObjectCaseSensitive(env, "guest_boot");
	cJSON_DeleteItemFromObjectCaseSensitive(env, "snapshot");
	json_add(env, "guest_boot", json_str(restored ? "snapshot" :
					     boot == 2 ? "classic" : "lean"));
	if (restored)
		json_add(env, "snapshot", json_str(runs[n - 1].key));
}

int guest_capture_all(const struct guest_boot *b, size_t n, int jobs,
		      char **errors, cJSON *env, struct cap_err *err)
{
	struct boot_run *runs;
	struct guests g = { .err = err };
	size_t next = 0;

	if (!have_program(guest_qemu()))
		return cap_fail(err, EXIT_ENV_MISSING, "%s not found: run 'make deps' "
				"(qemu-system-x86)", guest_qemu());
	g.last_run = cache_path(err, "last-run/");
	if (!g.last_run)
		return -1;
	runs = xcalloc(n, sizeof(*runs));
	for (size_t i = 0; i < n; i++)
		runs[i].b = &b[i];
	while (!g.failed && unfinished(runs, n)) {
		/* While KVM is on trial, one boot at a time. */
		while (!g.failed && next < n && g.n < (size_t)(jobs > 0 ? jobs : 1) &&
		       may_start(&g, b))
			start_run(&g, &runs[next++]);
		usleep(POLL_US);
		for (size_t i = 0; i < g.n && !g.failed;)
			i += !step(&g, i, monotonic_seconds());
	}
	if (g.failed) {
		stop_all(&g);
		for (size_t i = 0; i < n; i++)
			free(runs[i].error);
	} else {
		cJSON_DeleteItemFromObjectCaseSensitive(env, "accelerator");
		json_add(env, "accelerator", json_str(accel_name(runs[n - 1].accel)));
		describe_boot(runs, n, env);
		for (size_t i = 0; i < n; i++)
			errors[i] = runs[i].error;
	}
	free(runs);
	free(g.a);
	free(g.last_run);
	return g.failed ? -1 : 0;
}
