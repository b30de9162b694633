// SPDX-License-Identifier: MIT
/*
 * The bpf/ libraries return their failures (capture/err.h) instead of
 * dying: each case below would have ended the process before; here the
 * test goes on and reads the kind and the message the command would print.
 * The runs (gp_run()) probe tests/go's toy bank, built here: they need
 * root and Go, as tests/go does, and fail saying so without them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bpf/engine.h"
#include "bpf/readplan.h"
#include "capture/err.h"
#include "capture/proc.h"
#include "unit.h"

#define GO "/usr/local/go/bin/go"

static void open_fails(const char *self)
{
	char text[] = "/tmp/test-bpf-errors-XXXXXX";
	char *want;
	struct cap_err err;
	int fd = mkstemp(text);

	if (fd < 0 || write(fd, "not code\n", 9) != 9) {
		fail("a text file", "cannot write %s", text);
		return;
	}
	close(fd);
	check("no such file: NULL", !go_open("/nonexistent/x", &err), "opened");
	expect_err("no such file", &err, EXIT_BAD_INPUT, "/nonexistent/x: cannot open");
	check("a text file: NULL", !go_open(text, &err), "opened");
	want = xasprintf("%s: not an ELF file", text);
	expect_err("a text file", &err, EXIT_BAD_INPUT, want);
	free(want);
	unlink(text);
	/* This test is C with DWARF (-g) but no Go runtime. */
	check("no Go runtime: NULL", !gp_open(self, &err), "opened");
	want = xasprintf("%s: no struct type runtime.g", self);
	expect_err("no Go runtime", &err, EXIT_BAD_INPUT, want);
	free(want);
}

static void func_fails(const char *self)
{
	struct cap_err err;
	struct go_binary *b = go_open(self, &err);
	struct go_func f;
	char *want;

	if (!b) {
		fail("no such function", "%s", err.msg);
		return;
	}
	check("no such function: -1", go_func(b, "main.nothere", &f, &err) == -1,
	      "found");
	want = xasprintf("%s: no function main.nothere", self);
	expect_err("no such function", &err, EXIT_BAD_INPUT, want);
	free(want);
	check("main resolves", go_func(b, "main", &f, &err) == 0 &&
	      f.nret > 0, err.msg);
	go_close(b);
}

/* Read @slot of @s: @size bytes at register @reg + @off. */
static void add_read(struct gp_site *s, unsigned slot, int reg, int size, int off)
{
	struct gp_read *rd = &s->reads[slot];

	memset(rd, 0, sizeof(*rd));
	rd->src = GP_SRC_REG;
	rd->reg = (unsigned char)reg;
	rd->size = (unsigned char)size;
	rd->nhops = 1;
	rd->off[0] = off;
	if (slot >= s->nreads)
		s->nreads = slot + 1;
}

/* Plan @s, which must fail with @msg. */
static void plan_refused(const char *name, const struct gp_site *s, const char *msg)
{
	struct gp_plan plan;
	struct cap_err err;

	if (!gp_plan_site(s, "f", &plan, &err)) {
		fail(name, "planned");
		return;
	}
	expect_err(name, &err, EXIT_USAGE, msg);
}

static void plan_fails(void)
{
	struct gp_site s;

	memset(&s, 0, sizeof(s));
	add_read(&s, 0, GP_RAX, 3, 0);
	plan_refused("a read of 3 bytes", &s, "f: read 0 is malformed");
	memset(&s, 0, sizeof(s));
	s.nreads = GP_MAX_READS + 1;
	plan_refused("too many reads", &s, "f: more than 24 reads");
	/* Seven hops from each of five registers: a block a pointer, 35. */
	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < 5; i++) {
		add_read(&s, i, (int)i, 8, 0);
		s.reads[i].nhops = GP_MAX_HOPS;
	}
	plan_refused("too many bulk reads", &s, "f: the reads need more than 32 bulk reads");
	/* Three spans of 500 bytes: past the 1024 bytes of a record. */
	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < 3; i++) {
		add_read(&s, 2 * i, (int)i, 8, 0);
		add_read(&s, 2 * i + 1, (int)i, 8, 492);
	}
	plan_refused("too many record bytes", &s,
		     "f: the reads need more than 1024 record bytes");
}

/*
 * The toy bank of tests/go (a Go program with DWARF) into @dir; NULL,
 * having failed the run tests saying why, if it cannot be built.
 */
static char *build_bank(const char *dir)
{
	char *out = xasprintf("%s/bank", dir);
	const char *argv[] = { GO, "-C", "tests/go/bank", "build", "-trimpath",
			       "-buildvcs=false", "-o", out, ".", NULL };
	struct proc_result r;

	if (geteuid()) {
		fail("gp_run", "needs root for BPF uprobes (make test runs as root)");
		free(out);
		return NULL;
	}
	if (access(GO, X_OK)) {
		fail("gp_run", "needs Go at %s to build the toy bank", GO);
		free(out);
		return NULL;
	}
	setenv("GOTOOLCHAIN", "local", 1);
	setenv("GOFLAGS", "-mod=readonly", 1);
	r = proc_run(argv, NULL, NULL, 0);
	if (!r.exited || r.status) {
		fail("gp_run", "go build of tests/go/bank failed (its message is above)");
		free(out);
		return NULL;
	}
	return out;
}

/* An engine on @bank probing main.(*Bank).apply's entry (no reads). */
static struct gp_engine *bank_engine(const char *bank)
{
	struct gp_site entry;
	struct cap_err err;
	struct gp_engine *e = gp_open(bank, &err);

	memset(&entry, 0, sizeof(entry));
	if (!e || gp_probe(e, "main.(*Bank).apply", &entry, NULL, &err) < 0) {
		fail("an engine on the bank", "%s", err.msg);
		if (e)
			gp_close(e);
		return NULL;
	}
	return e;
}

static void no_record(const struct gp_record *r, void *arg)
{
	(void)r;
	(void)arg;
}

/* The first record kills the target, as a crash would. */
static void kill_sender(const struct gp_record *r, void *arg)
{
	(void)arg;
	kill((pid_t)r->pid, SIGKILL);
}

/*
 * A run that fails: of the bank with -transfers @transfers, a ring of
 * @ring bytes read at the end (0: the default, read as it goes), handing
 * each record to @fn; the failure's kind and the start of its message
 * after the bank's path.
 */
struct run_case {
	const char *name, *transfers;
	unsigned long ring;
	double timeout_s;
	gp_record_fn fn;
	enum exit_code code;
	const char *msg;
};

static const struct run_case run_cases[] = {
	{ "a run past its timeout", "400000", 0, 1, no_record,
	  EXIT_CAPTURE_FAILED, ": timed out after 1 s" },
	{ "a 4 KiB ring read at the end", "400", 4096, 60, no_record,
	  EXIT_CAPTURE_FAILED, ": lost events: " },
	{ "a target killed", "400000", 0, 60, kill_sender,
	  EXIT_CAPTURE_FAILED, " killed by signal 9" },
};

/*
 * gp_run() of @e must fail with @code and a message starting with @msg,
 * leaving neither its target (reaped: no child of ours is left) nor its
 * output @out.
 */
static void run_refused(const char *name, struct gp_engine *e, char *const argv[],
			const char *out, const struct run_case *c,
			enum exit_code code, const char *msg)
{
	struct cap_err err;
	char *what;

	if (gp_run(e, argv, out, c->timeout_s, c->fn, NULL, &err) != -1) {
		fail(name, "the run succeeded");
		return;
	}
	if (err.code != code || strncmp(err.msg, msg, strlen(msg)))
		fail(name, "exit code %d \"%s\", want %d \"%s...\"", err.code,
		     err.msg, code, msg);
	else
		pass(name);
	what = xasprintf("%s: target reaped", name);
	check(what, waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD,
	      "a child of the test is left");
	free(what);
	what = xasprintf("%s: its output removed", name);
	check(what, access(out, F_OK) && errno == ENOENT, out);
	free(what);
}

/* Case @c on @bank, output to @out; with @again, a second run after it. */
static void run_case(const char *bank, const char *out,
		     const struct run_case *c, int again)
{
	char *argv[] = { (char *)bank, "-transfers", (char *)c->transfers, NULL };
	struct gp_engine *e = bank_engine(bank);
	char *msg;

	if (!e)
		return;
	gp_set_ring(e, c->ring, c->ring != 0);
	msg = xasprintf("%s%s", bank, c->msg);
	run_refused(c->name, e, argv, out, c, c->code, msg);
	free(msg);
	if (again) {
		msg = xasprintf("%s: an engine runs its target once", bank);
		run_refused("a second run", e, argv, out, c, EXIT_USAGE, msg);
		free(msg);
	}
	gp_close(e);
}

static void run_fails(void)
{
	char dir[] = "/tmp/test-bpf-errors-XXXXXX";
	char *bank, *out;

	if (!mkdtemp(dir)) {
		fail("gp_run", "mkdtemp: %s", strerror(errno));
		return;
	}
	bank = build_bank(dir);
	out = xasprintf("%s/out", dir);
	for (size_t i = 0; bank && i < sizeof(run_cases) / sizeof(run_cases[0]); i++)
		run_case(bank, out, &run_cases[i], i == 0);
	remove_tree(dir);
	free(bank);
	free(out);
}

int main(int argc, char **argv)
{
	(void)argc;
	open_fails(argv[0]);
	func_fails(argv[0]);
	plan_fails();
	run_fails();
	return unit_status();
}
