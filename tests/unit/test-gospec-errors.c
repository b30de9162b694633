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

/* @text parses. */
static void parses(const char *name, const char *text)
{
	char *path = spec_file(text);
	struct cap_err err;
	struct go_spec *s = path ? go_spec_parse(path, &err) : NULL;

	check(name, s != NULL, s ? "" : err.msg);
	if (s)
		go_spec_free(s);
	if (path)
		unlink(path);
	free(path);
}

/* A spec's numbers out of their range: refused, never wrapped or saturated. */
static void numbers(void)
{
	refused("[:N] past 32 bits", FN "\tv i64 a[:4294967297]\n", 3,
		"a[:4294967297]: expected [:N] with N from 1 to 24");
	refused("[:N] past 64 bits", FN "\tv i64 a[:99999999999999999999]\n", 3,
		"a[:99999999999999999999]: expected [:N] with N from 1 to 24");
	parses("or 255 for a u8", FN "\tv u8 *t.X or 255\n");
	refused("or 300 for a u8", FN "\tv u8 *t.X or 300\n", 3,
		"or 300: out of range for u8 (0 to 255)");
	refused("or 0x100 for a u8", FN "\tv u8 *t.X or 0x100\n", 3,
		"or 0x100: out of range for u8 (0 to 255)");
	refused("or 128 for an i8", FN "\tv i8 *t.X or 128\n", 3,
		"or 128: out of range for i8 (-128 to 127)");
	refused("or 2^31 for an i32", FN "\tv i32 *t.X or 2147483648\n", 3,
		"or 2147483648: out of range for i32 (-2147483648 to 2147483647)");
	parses("or -128 for an i8", FN "\tv i8 *t.X or -128\n");
	parses("or -2^63 for an i64", FN "\tv i64 *t.X or -9223372036854775808\n");
	refused("or -129 for an i8", FN "\tv i8 *t.X or -129\n", 3,
		"or -129: out of range for i8 (-128 to 127)");
	refused("or -2^63-1 for an i64", FN "\tv i64 *t.X or -9223372036854775809\n", 3,
		"or -9223372036854775809: out of range for i64 "
		"(-9223372036854775808 to 9223372036854775807)");
	refused("or -1 for a u8", FN "\tv u8 *t.X or -1\n", 3,
		"or -1: a negative default needs a signed field");
	refused("or -x for an i8", FN "\tv i8 *t.X or -x\n", 3,
		"or -x: a default is a number of the field's type (or true, false)");
	parses("or 2^64-1 for a u64", FN "\tv u64 *t.X or 18446744073709551615\n");
	refused("or 2^64 for a u64", FN "\tv u64 *t.X or 18446744073709551616\n", 3,
		"or 18446744073709551616: a number too large for 64 bits");
	refused("a constant past 64 bits",
		FN "\tid i64 t.ID\n\tx i64 = id + 18446744073709551616\n", 4,
		"'18446744073709551616': a number too large for 64 bits");
	refused("per past 64 bits",
		"func main.f\nentry E per v == 18446744073709551616\n\tv u8 a[:4]\n", 2,
		"per v == 18446744073709551616: a number too large for 64 bits");
	refused("per 300 for a u8", "func main.f\nentry E per v == 300\n\tv u8 a[:4]\n", 2,
		"per v == 300: out of range for u8 (0 to 255)");
	parses("per 255 for a u8", "func main.f\nentry E per v == 255\n\tv u8 a[:4]\n");
}

int main(void)
{
	parses("a good spec parses", FN "\tid i64 t.ID\n\tx i64 = id + 1\n");
	parses("a quoted function name, blanks and # in it",
	       "func \"<a::T as a::Tr>::m\" # a comment\nentry E while \"a::{closure#0}\"\n"
	       "func \"a::{closure#0}\"\n");
	refused("a quote not closed", "func \"<a::T as a::Tr>::m\nentry E\n", 1,
		"a quoted name without its closing \" (or empty, or followed by more than a blank)");
	refused("a quote glued to a word", "func \"a\"b\nentry E\n", 1,
		"a quoted name without its closing \" (or empty, or followed by more than a blank)");
	refused("a name with a blank, unquoted", "func <a::T as a::Tr>::m\nentry E\n", 1,
		"expected 'func SYMBOL'");
	unreadable();
	refused("no function", "# nothing\n", 0, "the probe spec names no function");
	refused("a bad slice", FN "\tv i64 a[:0]\n", 3,
		"a[:0]: expected [:N] with N from 1 to 24");
	refused("a bad computation", FN "\tid i64 t.ID\n\tx i64 = if id 1 then 2 else 3\n",
		4, "'1': expected 'then' after if's condition");
	refused("a computed bool", FN "\tx bool = 1\n", 3,
		"a computed bool is a comparison (==, !=, <, <=, >, >=)");
	refused("deep in a computation", FN "\tid i64 t.ID\n\tx i64 = if id > 1 then max(id, (y)) else 0\n",
		4, "'y': neither a field above nor a number");
	parses("comparisons, min and max",
	       FN "\tid i64 t.ID\n\tx bool = if min(id,2) <= max(id, 3) then id != 1 else (id == 0)\n");
	parses("a table's name compared with its field",
	       "names k a b\n" FN "\tt k t.K\n\tx u64 = if t != b then 1 else 0\n");
	refused("a table's name not its field's", "names k a b\n" FN "\tt u64 t.K\n\tx bool = t == b\n",
		5, "'b': neither a field above nor a number");
	refused("a keep of no field", FN "\tid i64 t.ID\n\tkeep k proc id = v\n", 4,
		"keep k: 'v' is not a one-value field above");
	refused("a kept field's key", FN "\tv i64 kept k proc x or 1\n", 3,
		"key 'x': not a one-value field above, nor proc");
	parses("a slice of strings, each bounded", FN "\tv str a[:4][:8]\n\tw str a[:2].B\n");
	refused("a slice of strings' bound", FN "\tv str a[:2].B[:0]\n", 3,
		"a[:2].B[:0]: a str field ends in [:N], N from 1 to 128 bytes");
	refused("a slice of strings as a key", FN "\tv str a[:2].B\n\tid i64 t.ID\n\tkeep k v = id\n", 5,
		"key 'v': not a one-value field above, nor proc");
	refused("a slice of strings kept", FN "\tv str a[:2].B\n\tkeep k proc = v\n", 4,
		"keep k: 'v' is not a one-value field above");
	refused("a goroutine's key without proc", FN "\tg u64 goid hidden\n\tid i64 t.ID\n\tkeep k g = id\n",
		5, "key 'g': a goroutine id repeats across processes; key by proc g");
	refused("a kept goroutine's value without proc", FN "\tg u64 goid\n\tv i64 kept k g or 0\n",
		4, "key 'g': a goroutine id repeats across processes; key by proc g");
	parses("a goroutine's key with proc", FN "\tg u64 goid\n\tv i64 kept k g proc or 0\n\tkeep k proc g = v\n");
	refused("a kept field's state", FN "\tid i64 t.ID\n\tkeep k proc = id\n\tv i64 kept j proc\n", 5,
		"kept j: no 'keep j' in the spec");
	refused("a field of a group", "group g p\n\tv i64 p.X[:0]\n" FN "\tuse g t\n",
		2, "t.X[:0]: expected [:N] with N from 1 to 24");
	refused("a key both value and object", FN "\ta i64 t.ID\n\ta.b i64 t.To\n", 4,
		"a.b and a (line 3): a key is a value or an object, not both");
	refused("a clause", FN "\tid i64 t.ID\nreturn R by nothing\n", 4,
		"no names table R above");
	refused("while nothing", "func main.f\nentry E while main.g\n\tid i64 t.ID\n", 2,
		"while main.g: no 'func main.g' in the spec");
	numbers();
	return unit_status();
}
