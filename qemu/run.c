// SPDX-License-Identifier: MIT
/*
 * Booting the guest: accelerator probe, QEMU launch, the event channel's
 * checks, timeout and one retry.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "guest.h"

#define QEMU "qemu-system-x86_64"
/* /init's isa-debug-exit values 0x10 (done) and 0x11 (failed), as QEMU exits. */
#define EXIT_GUEST_DONE ((0x10 << 1) | 1)
#define EXIT_GUEST_FAILED ((0x11 << 1) | 1)
#define DEFAULT_TIMEOUT 60.0

/* Quiet, fast boot (NOTES.md): no KASLR, no mitigations, no keyboard probe. */
static const char base_append[] =
	"console=ttyS0 quiet panic=-1 nokaslr mitigations=off tsc=reliable "
	"no_timer_check i8042.noaux i8042.nokbd i8042.nopnp";

enum accel { ACCEL_TCG, ACCEL_KVM };

/*
 * KVM here may be a nested hypervisor that kills stock kernels on the
 * first MSR write.  Start a paused KVM machine: if it is still alive after
 * a moment, KVM works; if QEMU dies at once, use TCG.  CAPTURE_ACCEL=tcg
 * or kvm skips the probe.
 */
static enum accel probe_accel(void)
{
	const char *force = getenv("CAPTURE_ACCEL");
	const char *argv[] = { QEMU, "-accel", "kvm", "-cpu", "host", "-M", "pc",
			       "-nodefaults", "-display", "none", "-S", NULL };
	struct proc_result r;
	int fd;

	if (force && *force) {
		if (strcmp(force, "tcg") && strcmp(force, "kvm"))
			die(EXIT_USAGE, "CAPTURE_ACCEL must be tcg or kvm, not '%s'", force);
		return strcmp(force, "kvm") ? ACCEL_TCG : ACCEL_KVM;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		progress("no usable /dev/kvm: using TCG");
		return ACCEL_TCG;
	}
	close(fd);
	r = proc_run(argv, "/dev/null", "/dev/null", 0.5);
	if (r.timed_out) {
		progress("KVM works: using it");
		return ACCEL_KVM;
	}
	progress("KVM is unusable here (QEMU stops at once): using TCG");
	return ACCEL_TCG;
}

static double timeout_seconds(void)
{
	const char *t = getenv("CAPTURE_GUEST_TIMEOUT");
	double s = t ? strtod(t, NULL) : DEFAULT_TIMEOUT;

	return s > 0 ? s : DEFAULT_TIMEOUT;
}

struct attempt {
	enum accel accel;
	char *console;   /* the guest's ttyS0 */
	char *qemu_err;  /* QEMU's own stderr */
	char *problem;   /* why the attempt does not count, NULL if it does */
	char *error;     /* the guest's CAPTURE ERROR text */
};

/*
 * /init's capture_stop: "exit" for a boot-only run; CAPTURE_GUEST_STOP=
 * poweroff or hang makes the guest fail the way real guests do (powering
 * off without a word, hanging), which the checks below must catch;
 * midway and midway-hang reach the guest's own script (the spin module
 * stops printing halfway, then ends or hangs).
 */
static const char *stop_word(const struct guest_boot *b)
{
	const char *stop = getenv("CAPTURE_GUEST_STOP");

	if (b->boot_only)
		return "exit";
	if (!stop || !*stop)
		return NULL;
	if (strcmp(stop, "poweroff") && strcmp(stop, "hang") &&
	    strcmp(stop, "midway") && strcmp(stop, "midway-hang"))
		die(EXIT_USAGE, "CAPTURE_GUEST_STOP must be poweroff, hang, midway "
		    "or midway-hang, not '%s'", stop);
	return stop;
}

/* A file chardev @id at @path (QEMU splits options at commas: ",," is one). */
static char *chardev_file(const char *id, const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "file,id=%s,path=", id);
	for (const char *p = path; *p; p++)
		strbuf_addstr(&sb, *p == ',' ? ",," : (char[]){ *p, 0 });
	return sb.buf;
}

static struct proc_result launch(const struct guest_boot *b, struct attempt *a)
{
	char *cpus = xasprintf("%d", b->cpus > 0 ? b->cpus : 1);
	const char *stop = stop_word(b);
	char *full = xasprintf("%s%s%s %s", base_append, stop ? " capture_stop=" : "",
			       stop ? stop : "", b->append ? b->append : "");
	char *console = chardev_file("console", a->console);
	char *events = chardev_file("events", b->events_path);
	int kvm = a->accel == ACCEL_KVM;
	const char *argv[] = { QEMU, "-accel", kvm ? "kvm" : "tcg",
		"-cpu", kvm ? "host" : "qemu64", "-M", "pc", "-smp", cpus,
		"-m", "256M", "-nodefaults", "-display", "none", "-no-reboot",
		"-kernel", b->vmlinux, "-initrd", b->initrd, "-append", full,
		"-chardev", console, "-serial", "chardev:console",
		"-chardev", events, "-device", "isa-debugcon,iobase=0xe9,chardev=events",
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", NULL };
	struct proc_result r;

	remove(b->events_path);
	r = proc_run(argv, "/dev/null", a->qemu_err, timeout_seconds());
	free(events);
	free(console);
	free(full);
	free(cpus);
	return r;
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

/* One boot; a->problem says why it does not count. */
static void attempt(const struct guest_boot *b, struct attempt *a)
{
	struct proc_result r;
	char *qemu;

	progress("booting the %s guest (%s)", b->name,
		 a->accel == ACCEL_KVM ? "kvm" : "tcg");
	r = launch(b, a);
	qemu = qemu_says(a->qemu_err);
	if (r.timed_out) {
		a->problem = xasprintf("the guest hung: no exit within %.0f s "
				       "(CAPTURE_GUEST_TIMEOUT)", timeout_seconds());
	} else if (!r.exited) {
		a->problem = xasprintf("QEMU died of signal %d%s", r.status, qemu);
	} else if (b->boot_only) {
		if (r.status != EXIT_GUEST_DONE)
			a->problem = xasprintf("QEMU exited %d, not through /init's "
					       "isa-debug-exit%s", r.status, qemu);
	} else {
		char *problem = check_channel(b->events_path, &a->error);

		if (problem)
			a->problem = xasprintf("%s (QEMU exited %d)%s", problem,
					       r.status, qemu);
		else if (!a->error && r.status != EXIT_GUEST_DONE)
			a->problem = xasprintf("the guest did not report success through "
					       "isa-debug-exit (QEMU exited %d)%s",
					       r.status, qemu);
		free(problem);
	}
	free(qemu);
}

char *guest_capture(const struct guest_boot *b, cJSON *env)
{
	static int probed = -1;
	struct attempt a = { 0 };

	if (!have_program(QEMU))
		die(EXIT_ENV_MISSING, "%s not found: run 'make deps' (qemu-system-x86)", QEMU);
	if (probed < 0)
		probed = probe_accel();
	a.accel = probed;
	a.console = guest_cache_path("last-run/%s.console.log", b->name);
	a.qemu_err = guest_cache_path("last-run/%s.qemu.log", b->name);
	for (int tries = 1;; tries++) {
		attempt(b, &a);
		if (!a.problem)
			break;
		if (tries == 2)
			die(EXIT_CAPTURE_FAILED, "%s guest: %s; console log: %s",
			    b->name, a.problem, a.console);
		progress("%s; retrying once%s (console log: %s)", a.problem,
			 a.accel == ACCEL_KVM ? " with TCG" : "", a.console);
		free(a.problem);
		free(a.error);
		a.problem = a.error = NULL;
		a.accel = ACCEL_TCG;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(env, "accelerator");
	json_add(env, "accelerator", json_str(a.accel == ACCEL_KVM ? "kvm" : "tcg"));
	free(a.console);
	free(a.qemu_err);
	return a.error;
}
