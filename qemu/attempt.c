// SPDX-License-Identifier: MIT
/*
 * One QEMU process for a guest boot (attempt.h): launched, watched for
 * life and progress, judged when it exits.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../capture/die.h"
#include "../capture/proc.h"
#include "attempt.h"
#include "boot.h"
#include "channel.h"
#include "cmdline.h"
#include "snapshot.h"

/* /init's isa-debug-exit value 0x10 (done), as QEMU exits. */
#define EXIT_GUEST_DONE ((0x10 << 1) | 1)
#define DEFAULT_TIMEOUT 60.0
/*
 * A TCG boot is silent for about 1 s before /init's first line (2-3 s on a
 * loaded 2-vCPU machine, several guests at once); a scenario writes its
 * events within a second of that.  Ten times as long with nothing new is a
 * hung guest.
 */
#define DEFAULT_STALL 10.0
/* How often a silent guest is reported. */
#define QUIET_REPORT_S 5.0
/* /init's first line on the console: the guest runs (qemu/init). */
#define LIFE_MARKER "capture-guest: init up"
/* What /init reads a restored guest's words from (qemu/init). */
#define WORDS_FW_CFG "opt/capture/words"

static double env_seconds(const char *name, double fallback)
{
	const char *t = getenv(name);
	double s = t ? strtod(t, NULL) : fallback;

	return s > 0 ? s : fallback;
}

/* Boot @a in full, or restore its snapshot and hand it its words. */
void attempt_launch(struct attempt *a)
{
	const struct guest_boot *b = a->run->b;
	char *words = boot_words(b), *value;
	struct qemu_line l = { 0 };

	if (a->saving) {
		qemu_machine_line(&l, b, a->accel, a->console, NULL, a->head, NULL);
		qemu_arg(&l, "-qmp");
		qemu_arg_own(&l, xasprintf("unix:%s/qmp,server=on,wait=off", a->qmp_dir));
		l.argv[l.n] = NULL;
	} else {
		qemu_machine_line(&l, b, a->accel, a->console, a->events, a->trace,
				  a->snapshot ? NULL : words);
	}
	if (a->snapshot && !a->saving) {
		qemu_arg(&l, "-incoming");
		qemu_arg_own(&l, snapshot_incoming(a->snapshot));
		value = qemu_opt_value(words);
		qemu_arg(&l, "-fw_cfg");
		qemu_arg_own(&l, xasprintf("name=%s,string=%s", WORDS_FW_CFG, value));
		free(value);
		l.argv[l.n] = NULL;
	}
	remove(a->events);
	if (a->trace)
		remove(a->trace);
	remove(a->console);
	if (a->saving)
		progress("booting the %s guest (%s) to save a snapshot of it", b->name,
			 accel_name(a->accel));
	else if (a->snapshot)
		progress("restoring the %s guest (%s) from its snapshot", b->name,
			 accel_name(a->accel));
	else
		progress("booting the %s guest (%s)", b->name, accel_name(a->accel));
	proc_start(&a->proc, l.argv, "/dev/null", a->qemu_err);
	a->started = a->changed = a->said = monotonic_seconds();
	a->looked = a->started;
	a->owed = a->pending = a->waited = a->ran = 0;
	a->life = 0;
	a->seen = 0;
	qemu_line_free(&l);
	free(words);
}

/* First line of QEMU's stderr, for messages. */
static char *qemu_says(const char *path)
{
	char *text = read_file(path, NULL);
	char *line;

	if (!text || !*text) {
		free(text);
		return xstrdup("");
	}
	text[strcspn(text, "\n")] = '\0';
	line = xasprintf(" (QEMU: %s)", text);
	free(text);
	return line;
}

/* QEMU exited: does the boot count?  Sets a->problem when it does not. */
void attempt_judge(struct attempt *a, struct proc_result r)
{
	const struct guest_boot *b = a->run->b;
	char *qemu = qemu_says(a->qemu_err);

	if (!r.exited) {
		a->problem = xasprintf("QEMU died of signal %d%s", r.status, qemu);
	} else if (a->saving) {
		a->problem = xasprintf("QEMU exited %d before the guest was ready "
				       "to be saved%s", r.status, qemu);
	} else if (b->boot_only) {
		if (r.status != EXIT_GUEST_DONE)
			a->problem = xasprintf("QEMU exited %d, not through /init's "
					       "isa-debug-exit%s", r.status, qemu);
	} else {
		char *problem = channel_check(a->events, &a->run->error);

		if (!problem && !a->run->error && a->trace)
			problem = channel_check_trace(a->trace);
		if (problem)
			a->problem = xasprintf("%s (QEMU exited %d)%s", problem,
					       r.status, qemu);
		else if (!a->run->error && r.status != EXIT_GUEST_DONE)
			a->problem = xasprintf("the guest did not report success through "
					       "isa-debug-exit (QEMU exited %d)%s",
					       r.status, qemu);
		free(problem);
	}
	free(qemu);
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (long long)st.st_size;
}

int attempt_console_says(const struct attempt *a, const char *marker)
{
	char *text = read_file(a->console, NULL);
	int says = text && strstr(text, marker);

	free(text);
	return says;
}

/*
 * Life is /init's line on the console or anything on the event channel;
 * firmware may print before the kernel runs, which proves nothing.
 */
static int alive(const struct attempt *a)
{
	return file_size(a->events) || attempt_console_says(a, LIFE_MARKER);
}

/* What the kernel says of a process's threads at one look. */
struct sched_look {
	double ran, waited;  /* seconds on a CPU, and runnable waiting for one */
	int runnable;        /* a thread is runnable (state R) now */
};

/* One thread's /proc/PID/task/TID/{schedstat,stat}, added to @l. */
static void look_thread(const char *dir, struct sched_look *l)
{
	char path[160], line[512], *paren;
	unsigned long long ran, waited;
	FILE *f;

	snprintf(path, sizeof path, "%s/schedstat", dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%llu %llu", &ran, &waited) == 2) {
			l->ran += (double)ran / 1e9;
			l->waited += (double)waited / 1e9;
		}
		fclose(f);
	}
	/* "TID (COMM) S ...": the state follows the last ')'. */
	snprintf(path, sizeof path, "%s/stat", dir);
	if ((f = fopen(path, "r"))) {
		if (fgets(line, sizeof line, f) && (paren = strrchr(line, ')')) &&
		    paren[1] == ' ' && paren[2] == 'R')
			l->runnable = 1;
		fclose(f);
	}
}

/* The process @pid's threads, summed; all 0 where the kernel keeps no count. */
static struct sched_look sched_look(int pid)
{
	struct sched_look l = { 0, 0, 0 };
	char path[64], dir[128];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/task", pid);
	if (!(d = opendir(path)))
		return l;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof dir, "%s/%.32s", path, e->d_name);
		look_thread(dir, &l);
	}
	closedir(d);
	return l;
}

/*
 * The guest's clock at monotonic time @now: the time since launch the
 * host gave it.  Time QEMU waited for a CPU is left off, so a loaded host
 * (other guests, the tests beside it) does not make a running guest look
 * silent, while a guest that idles or spins still runs out of time.  The
 * kernel adds a wait to its count when the wait ends: a wait going on now
 * shows as a runnable thread with no new CPU time, and is owed look by
 * look as pending; an ended wait owes what pending did not cover.  The
 * clock never goes below launch.
 */
static double guest_clock(struct attempt *a, double now)
{
	struct sched_look l = sched_look(a->proc.pid);
	double dt = now - a->looked;

	if (l.waited > a->waited) {
		if (l.waited - a->waited > a->pending)
			a->owed += l.waited - a->waited - a->pending;
		a->pending = 0;
	} else if (l.runnable && l.ran <= a->ran) {
		a->owed += dt;
		a->pending += dt;
	}
	if (a->owed > now - a->started)
		a->owed = now - a->started;
	a->waited = l.waited;
	a->ran = l.ran;
	a->looked = now;
	return now - a->owed;
}

/*
 * A running guest's evidence: any byte on its console or event channel is
 * progress.  Returns a problem once it has been silent too long or ran out
 * of time, both on the guest's clock, else NULL.
 */
char *attempt_watch(struct attempt *a, double wall)
{
	long long seen = file_size(a->console) + file_size(a->events) +
			 (a->trace ? file_size(a->trace) : 0);
	double now = guest_clock(a, wall);
	double stall = env_seconds("CAPTURE_GUEST_STALL", DEFAULT_STALL);
	double timeout = env_seconds("CAPTURE_GUEST_TIMEOUT", DEFAULT_TIMEOUT);

	if (seen != a->seen) {
		a->seen = seen;
		a->changed = a->said = now;
		if (!a->life && alive(a))
			a->life = now;
	}
	if (now - a->changed > stall)
		return xasprintf("the guest hung: nothing new on its console or event "
				 "channel for %.0f s (CAPTURE_GUEST_STALL)", stall);
	if (now - a->started > timeout)
		return xasprintf("the guest hung: no exit within %.0f s "
				 "(CAPTURE_GUEST_TIMEOUT)", timeout);
	if (now - a->said >= QUIET_REPORT_S) {
		progress("the %s guest (%s) has written nothing for %.0f s",
			 a->run->b->name, accel_name(a->accel), now - a->changed);
		a->said = now;
	}
	return NULL;
}

double attempt_elapsed(const struct attempt *a, double wall)
{
	return wall - a->owed - a->started;
}

void attempt_free(struct attempt *a)
{
	free(a->events);
	free(a->trace);
	free(a->console);
	free(a->qemu_err);
	free(a->problem);
	free(a->snapshot);
	if (a->head)
		remove(a->head);
	free(a->head);
	if (a->qmp_dir)
		remove_tree(a->qmp_dir);
	free(a->qmp_dir);
}

void attempt_remove_channels(const struct attempt *a)
{
	remove(a->events);
	if (a->trace)
		remove(a->trace);
}
