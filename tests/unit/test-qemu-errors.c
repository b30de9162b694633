// SPDX-License-Identifier: MIT
/*
 * qemu/ returns its failures (capture/err.h) instead of dying: the
 * builders, the cache, the kernel's download and unpacking, the trace
 * decoder, the guest runner; they leave nothing half-written: each case below
 * would have ended the process before; here the test goes on, reads the
 * kind and the message the command would print, and looks in the cache.
 * The cache is a fresh directory, so nothing is reused from a real one.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture/err.h"
#include "capture/json.h"
#include "capture/proc.h"
#include "capture/readers/ftrace.h"
#include "qemu/guest.h"
#include "unit.h"

static char cache[] = "/tmp/test-qemu-errors-XXXXXX";

/*
 * CACHE/@sub holds no entry whose name matches @glob: no temporary left,
 * or with "*", nothing at all (a failed build left nothing behind).
 */
static void expect_none(const char *name, const char *sub, const char *glob)
{
	char *path = xasprintf("%s/%s", cache, sub);
	size_t n;
	char **names = list_dir(path, NULL, &n);
	const char *left = NULL;

	for (size_t i = 0; names && i < n; i++)
		if (!fnmatch(glob, names[i], 0))
			left = names[i];
	if (!names)
		fail(name, "no directory %s", path);
	else if (left)
		fail(name, "%s left in %s", left, path);
	else
		pass(name);
	if (names)
		free_names(names, n);
	free(path);
}

/* A file @name in the cache's scratch directory with @text in it. */
static char *scratch(const char *name, const char *text)
{
	char *path = xasprintf("%s/scratch/%s", cache, name);

	write_file(path, text, strlen(text));
	return path;
}

static void helper_fails(void)
{
	char *bad = scratch("bad.c", "int main(void) { return missing; }\n");
	char *want;
	struct cap_err err;

	check("a helper from no source: NULL",
	      !guest_helper_build("/nonexistent/x.c", &err), "built");
	expect_err("a helper from no source", &err, EXIT_ENV_MISSING,
	       "cannot read /nonexistent/x.c");
	check("a helper that does not compile: NULL",
	      !guest_helper_build(bad, &err), "built");
	want = xasprintf("building guest helper bad failed (log: %s/last-run/"
			 "bad-build.log); run 'make deps' (build-essential)", cache);
	expect_err("a helper that does not compile", &err, EXIT_ENV_MISSING, want);
	expect_none("a helper that does not compile: nothing in helpers/",
		    "helpers", "*");
	free(want);
	free(bad);
}

static void module_fails(void)
{
	/* Headers that are no kernel's: a .config, no Makefile. */
	char *config = scratch("headers/.config", "CONFIG_X=y\n");
	char *src = scratch("m.c", "\n");
	struct guest_kernel k = {
		.abi = "0-test", .version = "1",
		.headers_dir = xasprintf("%s/scratch/headers", cache),
	};
	char sha[65], *want;
	struct cap_err err;

	check("a module of a missing file: NULL",
	      !guest_module_build(&k, "m", (const char *const[]){
		      "/nonexistent/m.c", NULL }, sha, &err), "built");
	expect_err("a module of a missing file", &err, EXIT_ENV_MISSING,
	       "cannot read /nonexistent/m.c");
	check("a module the headers cannot build: NULL",
	      !guest_module_build(&k, "m", (const char *const[]){ src, NULL },
				  sha, &err), "built");
	want = xasprintf("building module m failed (log: %s/last-run/m-module-"
			 "build.log); are linux-headers-0-test and gcc installed? "
			 "run 'make deps'", cache);
	expect_err("a module the headers cannot build", &err, EXIT_ENV_MISSING, want);
	expect_none("a module the headers cannot build: nothing in modules/",
		    "modules", "*");
	free(want);
	free(k.headers_dir);
	free(src);
	free(config);
}

static void initramfs_fails(void)
{
	struct guest_file files[] = { { "/nonexistent/f", "f" } };
	char sha[65];
	struct cap_err err;

	check("an initramfs of a missing file: NULL",
	      !guest_initramfs(files, 1, sha, &err), "built");
	expect_err("an initramfs of a missing file", &err, EXIT_ENV_MISSING,
	       "cannot read /nonexistent/f");
	expect_none("an initramfs of a missing file: nothing in initramfs/",
		    "initramfs", "*");
}

/* Set (or with NULL unset) environment variable @name. */
static void set_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

static void cache_fails(void)
{
	char *file = scratch("not-a-directory", "");
	char *home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *xdg = getenv("XDG_CACHE_HOME") ? xstrdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *want = xasprintf("mkdir %s/kernel: Not a directory", file);
	struct cap_err err;

	unsetenv("CAPTURE_CACHE");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	check("no cache directory: NULL", !cache_path(&err, "kernel/x"),
	      "a path");
	expect_err("no cache directory", &err, EXIT_ENV_MISSING,
		   "no cache directory: set CAPTURE_CACHE or HOME");
	setenv("CAPTURE_CACHE", file, 1);
	check("a cache that is a file: NULL", !cache_path(&err, "kernel/x"),
	      "a path");
	expect_err("a cache that is a file", &err, EXIT_CAPTURE_FAILED, want);
	setenv("CAPTURE_CACHE", cache, 1);
	set_env("HOME", home);
	set_env("XDG_CACHE_HOME", xdg);
	free(want);
	free(xdg);
	free(home);
	free(file);
}

/* An executable @name in the scratch bin/ with the shell script @body. */
static void fake_program(const char *name, const char *body)
{
	char *text = xasprintf("#!/bin/sh\n%s\n", body);
	char *path = scratch(name, text);

	chmod(path, 0755);
	free(path);
	free(text);
}

/* dpkg-query missing from PATH: the kernel cannot be found, nor described. */
static void no_dpkg_query(const char *path)
{
	char *empty = xasprintf("%s/scratch/empty", cache);
	struct guest_kernel k = { .abi = "0-test", .package = "linux-image-0-test",
				  .version = "1" };
	cJSON *env = json_obj();
	struct cap_err err;

	mkdir_p(empty);
	setenv("PATH", empty, 1);
	check("a kernel without dpkg-query: -1", guest_kernel_get(&k, &err) < 0,
	      "got one");
	expect_err("a kernel without dpkg-query", &err, EXIT_ENV_MISSING,
		   "'dpkg-query' failed: no message");
	expect_none("a kernel without dpkg-query: no output left in last-run/",
		    "last-run", "out.tmp-*");
	expect_none("a kernel without dpkg-query: no errors left in last-run/",
		    "last-run", "err.tmp-*");
	k = (struct guest_kernel){ .abi = "0-test", .package = "linux-image-0-test",
				   .version = "1" };
	check("a kernel described without dpkg-query: -1",
	      guest_kernel_describe(&k, env, &err) < 0, "described");
	expect_err("a kernel described without dpkg-query", &err, EXIT_ENV_MISSING,
		   "'dpkg-query' failed: no message");
	setenv("PATH", path, 1);
	cJSON_Delete(env);
	free(empty);
}

/* apt-get fails: nothing downloaded, the message names its log. */
static void download_fails(void)
{
	char *spec_file = xasprintf("%s/scratch/spec", cache);
	char *body = xasprintf("printf %%s \"$3\" > '%s'; exit 100", spec_file);
	char *spec, *want;
	struct guest_kernel k;
	struct cap_err err;

	fake_program("bin/apt-get", body);
	check("a kernel apt-get cannot download: -1", guest_kernel_get(&k, &err) < 0,
	      "got one");
	spec = read_file(spec_file, NULL);
	want = xasprintf("cannot download %s (log: %s/last-run/apt-get-download."
			 "log): run 'apt-get update && make deps'",
			 spec ? spec : "(apt-get did not run)", cache);
	expect_err("a kernel apt-get cannot download", &err, EXIT_ENV_MISSING, want);
	expect_none("a kernel apt-get cannot download: nothing in kernel/",
		    "kernel", "*");
	free(want);
	free(spec);
	free(body);
	free(spec_file);
}

/* The .deb in the cache's kernel/ (NULL if none). */
static char *cached_deb(void)
{
	char *dir = xasprintf("%s/kernel", cache), *deb = NULL;
	size_t n;
	char **names = list_dir(dir, NULL, &n);

	for (size_t i = 0; names && i < n; i++)
		if (has_suffix(names[i], ".deb"))
			deb = xasprintf("%s/%s", dir, names[i]);
	if (names)
		free_names(names, n);
	free(dir);
	return deb;
}

/*
 * apt-get "downloads" a .deb that is none: it is kept (and its sha256),
 * its unpacking fails and leaves nothing; then the .deb is a directory,
 * which cannot be read.
 */
static void unpack_fails(void)
{
	struct guest_kernel k;
	struct cap_err err;
	char *deb, *side, *want;

	fake_program("bin/apt-get", "spec=$3; name=${spec%%=*}\n"
		     "version=$(printf %s \"${spec#*=}\" | sed 's/:/%3a/g')\n"
		     "echo 'not a deb' > \"${name}_${version}_amd64.deb\"");
	check("a kernel .deb that is none: -1", guest_kernel_get(&k, &err) < 0,
	      "got one");
	expect_err("a kernel .deb that is none", &err, EXIT_ENV_MISSING,
		   "'bash' failed (exit 2)");
	expect_none("a kernel .deb that is none: no temporary in kernel/", "kernel",
		    "*.tmp-*");
	deb = cached_deb();
	check("a kernel .deb that is none: the .deb kept", deb != NULL, "no .deb");
	if (!deb)
		return;
	side = xasprintf("%s.sha256", deb);
	check("a kernel .deb that is none: its sha256 kept", file_exists(side),
	      "no .sha256");
	remove(side);
	remove(deb);
	mkdir_p(deb);
	check("an unreadable kernel .deb: -1", guest_kernel_get(&k, &err) < 0,
	      "got one");
	want = xasprintf("cannot read %s", deb);
	expect_err("an unreadable kernel .deb", &err, EXIT_ENV_MISSING, want);
	expect_none("an unreadable kernel .deb: no temporary in kernel/", "kernel",
		    "*.tmp-*");
	check("an unreadable kernel .deb: no sha256", !file_exists(side),
	      "a .sha256 beside it");
	free(want);
	free(side);
	free(deb);
}

/* The kernel's download and unpacking, with apt-get faked on PATH. */
static void kernel_fails(void)
{
	char *path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *bin = xasprintf("%s/scratch/bin:%s", cache, path);

	no_dpkg_query(path);
	setenv("PATH", bin, 1);
	download_fails();
	unpack_fails();
	setenv("PATH", path, 1);
	free(bin);
	free(path);
}

/* ftrace_open() of a channel holding @text: NULL, of kind @code, "PATH: @msg". */
static void trace_refused(const char *name, const char *text, enum exit_code code,
			  const char *msg)
{
	char *path = scratch("t.ftrace", text), *want = xasprintf("%s: %s", path, msg);
	char *null = xasprintf("%s: NULL", name);
	struct ftrace *t;
	struct cap_err err;

	t = ftrace_open(path, &err);
	check(null, !t, "decoded");
	if (t)
		ftrace_close(t);
	else
		expect_err(name, &err, code, want);
	free(null);
	free(want);
	free(path);
}

static void trace_fails(void)
{
	trace_refused("an empty trace channel", "", EXIT_CAPTURE_FAILED,
		      "the trace channel is empty");
	trace_refused("a file that is no trace channel", "hello\n", EXIT_BAD_INPUT,
		      "not a trace channel (no CAPTURE TRACE)");
	trace_refused("a trace channel with no end", "CAPTURE TRACE\n",
		      EXIT_CAPTURE_FAILED, "the trace channel stops at byte 14 of "
		      "its framing without CAPTURE TRACE END: events were lost");
	trace_refused("a trace channel a file short",
		      "CAPTURE TRACE\nCAPTURE TRACE END 1\n", EXIT_CAPTURE_FAILED,
		      "the guest shipped 1 trace files, 0 arrived");
	trace_refused("a trace channel of an unexpected file",
		      "CAPTURE TRACE\nFILE bogus 0\nCAPTURE TRACE END 1\n",
		      EXIT_BAD_INPUT, "unexpected file bogus");
	trace_refused("a ring buffer that overran",
		      "CAPTURE TRACE\nFILE per_cpu/cpu0/stats 11\noverrun: 3\n"
		      "CAPTURE TRACE END 1\n", EXIT_CAPTURE_FAILED,
		      "cpu0: the ring buffer lost events: overrun 3, commit overrun "
		      "0, dropped 0 (the trace buffer was too small)");
}

/* A trace channel of no file: it decodes, and holds no event. */
static void trace_queries_fail(void)
{
	char *path = scratch("none.ftrace", "CAPTURE TRACE\nCAPTURE TRACE END 0\n");
	char *json = scratch("none.json.log", "x\n"), *want;
	struct ftrace *t;
	struct cap_err err;
	const struct ftrace_record **by_seq;

	t = ftrace_open(path, &err);
	check("a trace channel of no file decodes", t != NULL, err.msg);
	if (!t)
		return;
	check("no such event: NULL", !ftrace_only(t, "s", "e", &err), "found");
	want = xasprintf("%s: no s:e event in the trace: events were lost", path);
	expect_err("no such event", &err, EXIT_CAPTURE_FAILED, want);
	free(want);
	by_seq = ftrace_by_seq(t, "s", "op", "end", 2, &err);
	check("events counted, none there: NULL", !by_seq, "a table");
	free(by_seq);
	want = xasprintf("%s: end counted 2 events, 2 of them are not in the trace: "
			 "events were lost", path);
	expect_err("events counted, none there", &err, EXIT_CAPTURE_FAILED, want);
	free(want);
	check("channels that disagree: -1",
	      ftrace_cross_check(path, json, "y\n", 2, &err) < 0, "agreed");
	want = xasprintf("%s:1: the JSON channel and the trace channel (%s) disagree",
			 json, path);
	expect_err("channels that disagree", &err, EXIT_CAPTURE_FAILED, want);
	free(want);
	check("no JSON channel: -1",
	      ftrace_cross_check(path, "/nonexistent/j", "", 0, &err) < 0, "agreed");
	expect_err("no JSON channel", &err, EXIT_CAPTURE_FAILED,
		   "/nonexistent/j: cannot read the JSON channel");
	ftrace_close(t);
	free(json);
	free(path);
}

/* No QEMU on PATH: the capture fails before anything starts. */
static void no_qemu(const char *path)
{
	char *empty = xasprintf("%s/scratch/empty", cache);
	struct guest_boot b = { .name = "none", .vmlinux = "/nonexistent/vmlinux",
				.initrd = "/nonexistent/initrd", .cpus = 1,
				.events_path = "/nonexistent/events" };
	char *error = NULL;
	struct cap_err err;

	mkdir_p(empty);
	unsetenv("CAPTURE_QEMU");
	setenv("PATH", empty, 1);
	check("a capture without QEMU: -1",
	      guest_capture_all(&b, 1, 1, &error, NULL, &err) < 0, "captured");
	expect_err("a capture without QEMU", &err, EXIT_ENV_MISSING,
		   "qemu-system-x86_64 not found: run 'make deps' (qemu-system-x86)");
	setenv("PATH", path, 1);
	free(empty);
}

/*
 * A QEMU that tells its version and then never boots: retried once, the
 * capture fails naming the last try's console log, no channel left.
 */
static void qemu_never_boots(void)
{
	char *qemu = xasprintf("%s/scratch/bin/fake-qemu", cache);
	char *events = xasprintf("%s/scratch/guest.log", cache), *want;
	struct guest_boot b = { .name = "fake", .vmlinux = "/nonexistent/vmlinux",
				.initrd = "/nonexistent/initrd", .cpus = 1,
				.events_path = events, .boot_only = 1 };
	char *error = NULL;
	struct cap_err err;

	/* It writes the event channel (-chardev file,id=events,path=...). */
	fake_program("bin/fake-qemu", "if [ \"$1\" = --version ]; then\n"
		     "\techo 'QEMU emulator version 0 (fake)'; exit 0\nfi\n"
		     "for a; do case $a in file,id=events,path=*)\n"
		     "\techo 'CAPTURE BEGIN fake' > \"${a#*,path=}\";; esac; done\n"
		     "echo 'fake: no guest' >&2; exit 1");
	setenv("CAPTURE_QEMU", qemu, 1);
	setenv("CAPTURE_GUEST_BOOT", "lean", 1);
	check("a QEMU that never boots: -1",
	      guest_capture_all(&b, 1, 1, &error, NULL, &err) < 0, "captured");
	want = xasprintf("fake guest: QEMU exited 1, not through /init's "
			 "isa-debug-exit (QEMU: fake: no guest); console log: "
			 "%s/last-run/fake.%ld.tcg.console.log", cache, (long)getpid());
	expect_err("a QEMU that never boots", &err, EXIT_CAPTURE_FAILED, want);
	expect_none("a QEMU that never boots: no channel left", "scratch",
		    "guest.log*");
	unsetenv("CAPTURE_GUEST_BOOT");
	unsetenv("CAPTURE_QEMU");
	free(want);
	free(events);
	free(qemu);
}

/* A real trace channel (a fixture): a field its events lack. */
static void trace_fields_fail(void)
{
	const char *path = "tests/spin/contention.ftrace";
	struct cap_err err;
	struct ftrace *t = ftrace_open(path, &err);
	const struct ftrace_record *begin;
	unsigned long long v;
	char *want = xasprintf("%s: capture_spin:spin_begin has no field nothing",
			       path), *str;

	check("the contention trace decodes", t != NULL, err.msg);
	begin = t ? ftrace_only(t, "capture_spin", "spin_begin", &err) : NULL;
	check("the contention trace has its spin_begin", begin != NULL, err.msg);
	if (begin) {
		check("a number field an event lacks: -1",
		      ftrace_num(t, begin, "nothing", &v, &err) < 0, "read");
		expect_err("a number field an event lacks", &err, EXIT_BAD_INPUT, want);
		str = ftrace_str(t, begin, "nothing", &err);
		check("a string field an event lacks: NULL", !str, str);
		expect_err("a string field an event lacks", &err, EXIT_BAD_INPUT, want);
		free(str);
	}
	if (t)
		ftrace_close(t);
	free(want);
}

/* The guest runner, with no QEMU or one that fails. */
static void runner_fails(void)
{
	char *path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");

	no_qemu(path);
	qemu_never_boots();
	free(path);
}

int main(void)
{
	char *sub;

	if (!mkdtemp(cache)) {
		fail("a fresh cache", "cannot create %s", cache);
		return 1;
	}
	setenv("CAPTURE_CACHE", cache, 1);
	for (int i = 0; i < 6; i++) {
		sub = xasprintf("%s/%s", cache, (const char *[]){ "scratch/headers",
				"scratch/bin", "helpers", "modules", "initramfs",
				"kernel" }[i]);
		mkdir_p(sub);
		free(sub);
	}
	helper_fails();
	module_fails();
	initramfs_fails();
	cache_fails();
	kernel_fails();
	trace_fails();
	trace_queries_fail();
	trace_fields_fail();
	runner_fails();
	remove_tree(cache);
	return unit_status();
}
