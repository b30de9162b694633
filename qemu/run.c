// SPDX-License-Identifier: MIT
/*
 * Booting guests: QEMU launched and watched (life, progress, exit), the
 * accelerator chosen by a guest that showed life, the event channel's
 * checks, one retry, several guests at once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "accel.h"
#include "cache.h"
#include "guest.h"
#include "snapshot.h"

/* /init's isa-debug-exit values 0x10 (done) and 0x11 (failed), as QEMU exits. */
#define EXIT_GUEST_DONE ((0x10 << 1) | 1)
#define EXIT_GUEST_FAILED ((0x11 << 1) | 1)
#define DEFAULT_TIMEOUT 60.0
/*
 * A TCG boot is silent for about 1 s before /init's first line (2-3 s on a
 * loaded 2-vCPU machine, several guests at once); a scenario writes its
 * events within a second of that.  Ten times as long with nothing new is a
 * hung guest.
 */
#define DEFAULT_STALL 10.0
/* How often a silent guest is reported, and how often guests are looked at. */
#define QUIET_REPORT_S 5.0
#define POLL_US 20000
/* /init's first line on the console: the guest runs (qemu/init). */
#define LIFE_MARKER "capture-guest: init up"
/* /init's line once it waits for its words from fw_cfg (qemu/init). */
#define READY_MARKER "capture-guest: ready"
/* /init's line once a restored guest has its words (qemu/init). */
#define RESTORED_MARKER "capture-guest: restored"
/* Where a snapshot's guest waits for its words; what /init reads them from. */
#define SNAPSHOT_WORD " capture_snapshot=1"
#define WORDS_FW_CFG "opt/capture/words"

/* Quiet, fast boot: no KASLR, no mitigations, no keyboard probe. */
static const char base_append[] =
	"console=ttyS0 quiet panic=-1 nokaslr mitigations=off tsc=reliable "
	"no_timer_check i8042.noaux i8042.nokbd i8042.nopnp";

/*
 * The lean boot (docs/spin.md has the measurements, TCG, 2 vCPUs):
 * qboot instead of SeaBIOS (-0.18 s before the kernel runs), no crypto
 * self-tests (-0.5 s), no local APIC timer calibration (-0.12 s: 100 ms of
 * waiting on the PIT), no read-only remapping and its W+X check (-0.1 s),
 * no ACPI (-0.1 s; qboot's MP table still lists every CPU), an
 * uncompressed initramfs (-0.06 s of gunzip), and noreplace-smp (-0.12 s:
 * at one CPU the kernel otherwise rewrites its ~9,200 lock prefixes, and
 * every module's, into NOPs one text_poke() at a time; a locked
 * instruction means the same on one CPU, and at two nothing is rewritten
 * anyway).  Nothing the capture uses is left out: the scenario module, its
 * kthreads and the debug ports.
 */
static const char lean_append[] =
	" cryptomgr.notests nolapic_timer rodata=off acpi=off noreplace-smp";

/* CAPTURE_GUEST_BOOT: snapshot (the default), lean or classic. */
static int guest_boot(void)
{
	static const char *const boots[] = { "snapshot", "lean", "classic", NULL };
	int boot = env_choice("CAPTURE_GUEST_BOOT", boots);

	return boot < 0 ? 0 : boot;
}

int guest_boot_lean(void)
{
	return guest_boot() != 2;
}

const char *guest_qemu(void)
{
	const char *q = getenv("CAPTURE_QEMU");

	return q && *q ? q : "qemu-system-x86_64";
}

static double env_seconds(const char *name, double fallback)
{
	const char *t = getenv(name);
	double s = t ? strtod(t, NULL) : fallback;

	return s > 0 ? s : fallback;
}

/* One boot of a guest: the caller's request, its tries, its outcome. */
struct boot_run {
	const struct guest_boot *b;
	int tries;
	int done;
	int full;           /* boot in full: no snapshot, or it failed */
	enum accel accel;   /* of the attempt that counted */
	char key[17];       /* its snapshot's key, "" if it booted in full */
	char *error;        /* the guest's CAPTURE ERROR text */
};

/* One QEMU process for a boot. */
struct attempt {
	struct boot_run *run;
	enum accel accel;
	int racing;         /* the KVM probe's TCG twin, or the probe itself */
	char *snapshot;     /* the snapshot it restores or saves, NULL for a full boot */
	char key[17];       /* that snapshot's key */
	int saving;         /* boots to /init's ready point to save @snapshot */
	char *head;         /* saving: its trace channel, @snapshot's trace part */
	int head_cleanup;   /* removes @head if we die */
	char *qmp_dir;      /* the saving QEMU's QMP socket is qmp in there */
	int qmp_cleanup;    /* removes @qmp_dir if we die */
	char *events;       /* this attempt's event channel, renamed on success */
	char *trace;        /* its trace channel, or NULL; renamed on success */
	char *console;      /* the guest's ttyS0 */
	char *qemu_err;     /* QEMU's own stderr */
	struct proc proc;
	int cleanup;        /* removes @events if we die */
	int trace_cleanup;  /* removes @trace if we die */
	double started, changed, life, said;
	long long seen;     /* console + events bytes at the last look */
	char *problem;      /* why it does not count, NULL if it does */
};

static const char *accel_name(enum accel a)
{
	return a == ACCEL_KVM ? "kvm" : "tcg";
}

/*
 * /init's capture_stop: "exit" for a boot-only run; CAPTURE_GUEST_STOP=
 * poweroff or hang makes the guest fail the way real guests do (stopping
 * without a word, hanging), which the checks below must catch; midway and
 * midway-hang reach the guest's own script (the spin module stops printing
 * halfway, then ends or hangs).
 */
static const char *stop_word(const struct guest_boot *b)
{
	static const char *const stops[] = { "poweroff", "hang", "midway",
					      "midway-hang", NULL };
	int stop;

	if (b->boot_only)
		return "exit";
	stop = env_choice("CAPTURE_GUEST_STOP", stops);
	return stop < 0 ? NULL : stops[stop];
}

/* @s with QEMU's option commas doubled: "," is ",," inside a value. */
static char *opt_value(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = s; *p; p++)
		strbuf_addstr(&sb, *p == ',' ? ",," : (char[]){ *p, 0 });
	return sb.buf;
}

/* A chardev @id writing into @path, or discarding what it gets (NULL). */
static char *chardev(const char *id, const char *path)
{
	char *value = path ? opt_value(path) : NULL;
	char *dev = path ? xasprintf("file,id=%s,path=%s", id, value) :
		    xasprintf("null,id=%s", id);

	free(value);
	return dev;
}

/* The words /init gets as variables: the boot's own and its capture_stop. */
static char *run_words(const struct guest_boot *b)
{
	const char *stop = stop_word(b);

	return xasprintf("%s%s %s", stop ? "capture_stop=" : "", stop ? stop : "",
			 b->append ? b->append : "");
}

/*
 * The kernel command line of @b with @words, or, for a snapshot (NULL),
 * with the word that makes /init wait for them from fw_cfg.
 */
static char *kernel_line(const struct guest_boot *b, const char *words)
{
	return xasprintf("%s%s %s%s%s", base_append, guest_boot_lean() ? lean_append : "",
			 b->prepare ? b->prepare : "", words ? " " : SNAPSHOT_WORD,
			 words ? words : "");
}

/* A QEMU command line and the strings it owns. */
struct qemu_line {
	const char *argv[64];
	size_t n;
	char *owned[16];
	size_t nowned;
};

static void arg(struct qemu_line *l, const char *a)
{
	l->argv[l->n++] = a;
}

/* Add @a, freed with the line. */
static void arg_own(struct qemu_line *l, char *a)
{
	l->owned[l->nowned++] = a;
	arg(l, a);
}

static void line_free(struct qemu_line *l)
{
	for (size_t i = 0; i < l->nowned; i++)
		free(l->owned[i]);
}

/*
 * The machine of boot @b: the event channel (port 0xe9) into @events and,
 * if the boot asks, the trace channel (0x4e9) into @trace.  A snapshot's
 * machine (@words NULL) always has both: the one restoring it must have
 * the devices of the one that saved it.
 */
static void machine_line(struct qemu_line *l, const struct guest_boot *b,
			 enum accel accel, const char *console, const char *events,
			 const char *trace, const char *words)
{
	int kvm = accel == ACCEL_KVM;
	static const char *const fixed[] = { "-M", "pc", "-m", "256M", "-nodefaults",
		"-display", "none", "-no-reboot", "-serial", "chardev:console",
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-device",
		"isa-debugcon,iobase=0xe9,chardev=events", NULL };

	arg(l, guest_qemu());
	arg(l, "-accel");
	arg(l, accel_name(accel));
	arg(l, "-cpu");
	arg(l, kvm ? "host" : "qemu64");
	arg(l, "-smp");
	arg_own(l, xasprintf("%d", b->cpus > 0 ? b->cpus : 1));
	for (size_t i = 0; fixed[i]; i++)
		arg(l, fixed[i]);
	arg(l, "-kernel");
	arg(l, b->vmlinux);
	arg(l, "-initrd");
	arg(l, b->initrd);
	arg(l, "-append");
	arg_own(l, kernel_line(b, words));
	arg(l, "-chardev");
	arg_own(l, chardev("console", console));
	arg(l, "-chardev");
	arg_own(l, chardev("events", events));
	if (trace || !words) {
		arg(l, "-chardev");
		arg_own(l, chardev("trace", trace));
		arg(l, "-device");
		arg(l, "isa-debugcon,iobase=0x4e9,chardev=trace");
	}
	if (guest_boot_lean()) {
		arg(l, "-bios");
		arg(l, "qboot.rom");
	}
	l->argv[l->n] = NULL;
}

/* Boot @a in full, or restore its snapshot and hand it its words. */
static void launch(struct attempt *a)
{
	const struct guest_boot *b = a->run->b;
	char *words = run_words(b), *value;
	struct qemu_line l = { 0 };

	if (a->saving) {
		machine_line(&l, b, a->accel, a->console, NULL, a->head, NULL);
		arg(&l, "-qmp");
		arg_own(&l, xasprintf("unix:%s/qmp,server=on,wait=off", a->qmp_dir));
		l.argv[l.n] = NULL;
	} else {
		machine_line(&l, b, a->accel, a->console, a->events, a->trace,
			     a->snapshot ? NULL : words);
	}
	if (a->snapshot && !a->saving) {
		arg(&l, "-incoming");
		arg_own(&l, snapshot_incoming(a->snapshot));
		value = opt_value(words);
		arg(&l, "-fw_cfg");
		arg_own(&l, xasprintf("name=%s,string=%s", WORDS_FW_CFG, value));
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
	a->life = 0;
	a->seen = 0;
	line_free(&l);
	free(words);
}

/*
 * The event channel must read "CAPTURE BEGIN <name>", lines, then
 * "CAPTURE END <count>" with count the number of lines between them; or
 * end in "CAPTURE ERROR <why>", the guest refusing its input.
 */
static char *check_channel(const char *path, char **error)
{
	size_t len;
	char *text = read_file(path, &len);
	char *line, *save = NULL, *problem = NULL;
	long lines = 0, count = -1;
	int begun = 0, ended = 0;

	if (!text)
		return xasprintf("the guest wrote nothing to its event channel");
	if (memchr(text, '\0', len))
		problem = xasprintf("the event channel holds NUL bytes");
	else if (len && text[len - 1] != '\n')
		problem = xasprintf("the event channel ends in the middle of a line");
	for (line = strtok_r(text, "\n", &save); line && !problem;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!begun) {
			begun = !strncmp(line, "CAPTURE BEGIN ", 14);
			if (!begun)
				problem = xasprintf("the event channel does not start with CAPTURE BEGIN");
		} else if (ended) {
			problem = xasprintf("output after CAPTURE END");
		} else if (!strncmp(line, "CAPTURE ERROR ", 14)) {
			*error = xstrdup(line + 14);
			ended = 1;
		} else if (sscanf(line, "CAPTURE END %ld", &count) == 1) {
			ended = 1;
		} else {
			lines++;
		}
	}
	if (!problem && !begun)
		problem = xasprintf("the guest wrote nothing to its event channel");
	else if (!problem && !ended)
		problem = xasprintf("the event channel stops after %ld events without CAPTURE END",
				    lines);
	else if (!problem && !*error && count != lines)
		problem = xasprintf("the guest reported %ld events but %ld arrived",
				    count, lines);
	free(text);
	return problem;
}

/*
 * The trace channel's bytes are binary and decoded later (the caller's
 * job); here only whether the guest got to the end of them.
 */
static char *check_trace_channel(const char *path)
{
	static const char end[] = "CAPTURE TRACE END ";
	size_t len, n = 0;
	char *data = read_file(path, &len), *problem = NULL;

	if (!data || !len) {
		free(data);
		return xasprintf("the guest wrote nothing to its trace channel");
	}
	/* It ends in "CAPTURE TRACE END <digits>\n", right after binary pages. */
	if (data[len - 1] == '\n')
		for (n = 1; n < len && data[len - 1 - n] >= '0' &&
			    data[len - 1 - n] <= '9'; n++)
			;
	if (n < 2 || len < n + strlen(end) ||
	    memcmp(data + len - n - strlen(end), end, strlen(end)))
		problem = xasprintf("the trace channel stops without CAPTURE TRACE END");
	free(data);
	return problem;
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
static void judge(struct attempt *a, struct proc_result r)
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
		char *problem = check_channel(a->events, &a->run->error);

		if (!problem && !a->run->error && a->trace)
			problem = check_trace_channel(a->trace);
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

static int console_says(const struct attempt *a, const char *marker)
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
	return file_size(a->events) || console_says(a, LIFE_MARKER);
}

/*
 * A running guest's evidence: any byte on its console or event channel is
 * progress.  Returns a problem once it has been silent too long or ran out
 * of time, else NULL.
 */
static char *watch(struct attempt *a, double now)
{
	long long seen = file_size(a->console) + file_size(a->events) +
			 (a->trace ? file_size(a->trace) : 0);
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
	char dir[] = "/tmp/capture-qmp-XXXXXX", *line, *part, *tmp;

	if (guest_boot() || run->full)
		return 0;
	line = kernel_line(run->b, NULL);
	a->snapshot = snapshot_path(run->b, accel_name(accel), line, a->key, g->err);
	free(line);
	if (!a->snapshot) {
		g->failed = 1;
		return -1;
	}
	if (!a->racing && snapshot_take(a->snapshot))
		return 0;
	if (!mkdtemp(dir)) {
		cap_fail(g->err, EXIT_CAPTURE_FAILED,
			 "cannot create a directory in /tmp");
		g->failed = 1;
		free(a->snapshot);
		return -1;
	}
	a->qmp_dir = xstrdup(dir);
	a->qmp_cleanup = remove_on_failure(a->qmp_dir);
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
	launch(a);
	return a;
}

static void free_attempt(struct attempt *a)
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
	free_attempt(&g->a[i]);
	memmove(&g->a[i], &g->a[i + 1], (g->n - i - 1) * sizeof(*g->a));
	g->n--;
}

static void remove_channels(const struct attempt *a)
{
	remove(a->events);
	if (a->trace)
		remove(a->trace);
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

	remove_channels(a);
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
	remove_channels(&g->a[i]);
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
	remove_channels(a);
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
	if (a.snapshot && !console_says(&a, RESTORED_MARKER)) {
		/* Not the guest's failure: the snapshot's (corrupt, stale). */
		progress("%s guest: its snapshot did not restore: %s; removed %s, "
			 "booting in full (the next capture saves a new one)",
			 run->b->name, a.problem, a.snapshot);
		snapshot_remove(a.snapshot);
		run->full = 1;
		remove_channels(&a);
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
	remove_channels(&a);
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
	if (t->life && now - a->started > 2 * (t->life - t->started)) {
		char *why = xasprintf("a KVM guest showed no life within %.1f s, "
				      "twice what TCG needed to reach /init",
				      now - a->started);

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
	if (a->saving && console_says(a, READY_MARKER)) {
		saved(g, i);
		return 1;
	}
	if (proc_poll(&a->proc, &r, 0)) {
		judge(a, r);
	} else if (!(a->problem = watch(a, now))) {
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
	g.last_run = guest_cache_path(err, "last-run/");
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
