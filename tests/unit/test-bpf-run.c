// SPDX-License-Identifier: MIT
/*
 * Runs of the bpf/ engine that fail (gp_run() returns them, capture/err.h):
 * past the timeout, a ring too small, a target killed; each leaves no
 * child and no output.  They probe tests/go's toy bank, built here.
 * needs: root btf go
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bpf/engine.h"
#include "capture/err.h"
#include "capture/proc.h"
#include "unit.h"

#define GO "/usr/local/go/bin/go"

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

int main(void)
{
	run_fails();
	return unit_status();
}
