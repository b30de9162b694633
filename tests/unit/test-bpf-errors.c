// SPDX-License-Identifier: MIT
/*
 * The bpf/ libraries return their failures (capture/err.h) instead of
 * dying: each case below would have ended the process before; here the
 * test goes on and reads the kind and the message the command would print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpf/engine.h"
#include "capture/err.h"
#include "unit.h"

/* @got's code is @code and its message is @msg exactly. */
static void expect(const char *name, const struct cap_err *got,
		   enum exit_code code, const char *msg)
{
	if (got->code != code)
		fail(name, "exit code %d, want %d (%s)", got->code, code, got->msg);
	else if (strcmp(got->msg, msg))
		fail(name, "message \"%s\", want \"%s\"", got->msg, msg);
	else
		pass(name);
}

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
	expect("no such file", &err, EXIT_BAD_INPUT, "/nonexistent/x: cannot open");
	check("a text file: NULL", !go_open(text, &err), "opened");
	want = xasprintf("%s: not an ELF file", text);
	expect("a text file", &err, EXIT_BAD_INPUT, want);
	free(want);
	unlink(text);
	/* This test is C with DWARF (-g) but no Go runtime. */
	check("no Go runtime: NULL", !gp_open(self, &err), "opened");
	want = xasprintf("%s: no struct type runtime.g", self);
	expect("no Go runtime", &err, EXIT_BAD_INPUT, want);
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
	expect("no such function", &err, EXIT_BAD_INPUT, want);
	free(want);
	check("main resolves", go_func(b, "main", &f, &err) == 0 &&
	      f.nret > 0, err.msg);
	go_close(b);
}

int main(int argc, char **argv)
{
	(void)argc;
	open_fails(argv[0]);
	func_fails(argv[0]);
	return unit_status();
}
