// SPDX-License-Identifier: MIT
/*
 * bpf/gospec.c returns a probe spec's refusals (capture/err.h) instead of
 * dying: the test reads each kind and "FILE:LINE: message" as capture go
 * would print it, and LeakSanitizer (the sanitizer build) checks that a
 * refused spec leaves nothing allocated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "bpf/gospec.h"
#include "capture/die.h"
#include "unit.h"

/* @text in a temporary file; its path (caller unlinks and frees), or NULL. */
static char *spec_file(const char *text)
{
	char *path = xstrdup("/tmp/test-gospec-errors-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fail("a spec file", "cannot write %s", path);
		free(path);
		return NULL;
	}
	return path;
}

/* @text is refused at @line with @msg (after "FILE:LINE: "; 0: "FILE: "). */
static void refused(const char *name, const char *text, long line, const char *msg)
{
	char *path = spec_file(text), *want;
	struct cap_err err;
	struct go_spec *s;

	if (!path)
		return;
	s = go_spec_parse(path, &err);
	if (s) {
		fail(name, "parsed");
		go_spec_free(s);
	} else {
		want = line ? xasprintf("%s:%ld: %s", path, line, msg) :
		       xasprintf("%s: %s", path, msg);
		expect_err(name, &err, EXIT_BAD_INPUT, want);
		free(want);
	}
	unlink(path);
	free(path);
}

static void unreadable(void)
{
	struct cap_err err;

	check("no such file: NULL", !go_spec_parse("/nonexistent/x.probes", &err),
	      "parsed");
	expect_err("no such file", &err, EXIT_BAD_INPUT,
		   "/nonexistent/x.probes: cannot open: No such file or directory");
	check("a device: NULL", !go_spec_parse("/dev/null", &err), "parsed");
	expect_err("a device", &err, EXIT_BAD_INPUT,
		   "/dev/null: a device, not a recorded file");
}

#define FN "func main.f\nentry E\n"

int main(void)
{
	char *path = spec_file(FN "\tid i64 t.ID\n\tx i64 = id + 1\n");
	struct cap_err err;
	struct go_spec *s = path ? go_spec_parse(path, &err) : NULL;

	check("a good spec parses", s != NULL, s ? "" : err.msg);
	if (s)
		go_spec_free(s);
	if (path)
		unlink(path);
	free(path);
	unreadable();
	refused("no function", "# nothing\n", 0, "the probe spec names no function");
	refused("a bad slice", FN "\tv i64 a[:0]\n", 3,
		"a[:0]: expected [:N] with N from 1 to 24");
	refused("a bad computation", FN "\tid i64 t.ID\n\tx i64 = if id 1 then 2 else 3\n",
		4, "expected 'if FIELD == VALUE then SUM else SUM'");
	refused("a computed bool", FN "\tx bool = 1\n", 3, "a computed field is an integer");
	refused("a field of a group", "group g p\n\tv i64 p.X[:0]\n" FN "\tuse g t\n",
		2, "t.X[:0]: expected [:N] with N from 1 to 24");
	refused("a key both value and object", FN "\ta i64 t.ID\n\ta.b i64 t.To\n", 4,
		"a.b and a (line 3): a key is a value or an object, not both");
	refused("a clause", FN "\tid i64 t.ID\nreturn R by nothing\n", 4,
		"no names table R above");
	refused("while nothing", "func main.f\nentry E while main.g\n\tid i64 t.ID\n", 2,
		"while main.g: no 'func main.g' in the spec");
	return unit_status();
}
