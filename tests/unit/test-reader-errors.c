// SPDX-License-Identifier: MIT
/*
 * The byte-format readers of folders/ (serial.c, with-tla.c, pgo.c) return
 * their failures (capture/err.h) instead of dying: each input below would
 * have ended the process before; here the test goes on and reads the kind
 * and the message (file:line) the folder would die with, and that the
 * reader closed its input (PGo's: LeakSanitizer finds what a failed merge
 * did not free, its reading thread included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "capture/err.h"
#include "capture/proc.h"
#include "capture/fold.h"
#include "capture/readers/pgo.h"
#include "capture/readers/serial.h"
#include "capture/readers/with-tla.h"
#include "unit.h"

static char path[] = "/tmp/test-reader-errors-XXXXXX";

/* @text into the test's file, named run.log in messages. */
static int write_stream(const char *name, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fail(name, "cannot write %s", path);
		return -1;
	}
	return 0;
}

static void no_marker(void *ctx)
{
	(void)ctx;
}

static void count_event(void *ctx, const cJSON *ev)
{
	(void)ev;
	(*(long long *)ctx)++;
}

static const struct serial_ops ops = {
	.system = "test", .begin = no_marker, .event = count_event,
	.end = no_marker,
};

/* A reader on @file, named run.log in messages, counting its events. */
typedef long long read_fn(struct line_reader *in, const char *file,
			  long long *events, struct cap_err *err);

static long long read_serial(struct line_reader *in, const char *file,
			     long long *events, struct cap_err *err)
{
	return serial_read(in, file, "run.log", &ops, events, err);
}

static long long read_with_tla(struct line_reader *in, const char *file,
			       long long *events, struct cap_err *err)
{
	return with_tla_read(in, file, "run.log", count_event, events, err);
}

/* @reader of @text fails with @code and @msg, its input closed. */
static void refused(const char *name, read_fn *reader, const char *text,
		    enum exit_code code, const char *msg)
{
	struct line_reader in;
	struct cap_err err;
	long long events = 0, got;
	char *what;

	if (write_stream(name, text))
		return;
	got = reader(&in, path, &events, &err);
	if (got != -1) {
		fail(name, "read it (%lld)", got);
		return;
	}
	expect_err(name, &err, code, msg);
	what = xasprintf("%s: input closed", name);
	check(what, in.f == NULL, "still open");
	free(what);
}

/* @reader of @text returns @want and hands on @events events. */
static void reads(const char *name, read_fn *reader, const char *text,
		  long long want, long long events)
{
	struct line_reader in;
	struct cap_err err;
	long long got = 0;

	if (!write_stream(name, text))
		check(name, reader(&in, path, &got, &err) == want && got == events,
		      err.msg);
}

/* A message longer than struct cap_err's msg comes whole. */
static void long_name_whole(void)
{
	char name[701], *want;
	struct line_reader in;
	struct cap_err err;
	long long events = 0;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	if (write_stream("a long name", "boot\n"))
		return;
	if (serial_read(&in, path, name, &ops, &events, &err) != -1) {
		fail("a message of a long name, whole", "read it");
		return;
	}
	want = xasprintf("%s:1: no CAPTURE BEGIN marker: not a test capture, or "
			 "nothing was captured", name);
	expect_err("a message of a long name, whole", &err, EXIT_CAPTURE_FAILED, want);
	free(want);
}

static void serial_fails(void)
{
	struct line_reader in;
	struct cap_err err;
	long long events = 0;

	refused("an event that is not JSON", read_serial,
		"CAPTURE BEGIN x\n{\"seq\":0,\n",
		EXIT_BAD_INPUT, "run.log:2: malformed event (not one JSON object)");
	refused("an event the writer refuses", read_serial,
		"CAPTURE BEGIN x\n{\"seq\":0,\"v\":1e999}\n",
		EXIT_BAD_INPUT, "run.log:2: a JSON number out of range (not finite)");
	refused("an event without seq", read_serial,
		"CAPTURE BEGIN x\n{\"seq\":-1}\n",
		EXIT_BAD_INPUT, "run.log:2: event without a natural number \"seq\"");
	refused("a seq gap", read_serial,
		"CAPTURE BEGIN x\n{\"seq\":0}\n{\"seq\":2}\nCAPTURE END 2\n",
		EXIT_CAPTURE_FAILED, "run.log:3: seq 2 where 1 was due: events were lost");
	refused("an event before BEGIN", read_serial, "{\"seq\":0}\n",
		EXIT_BAD_INPUT, "run.log:1: event before the CAPTURE BEGIN marker");
	refused("an event after END", read_serial,
		"CAPTURE BEGIN x\nCAPTURE END 0\n{\"seq\":0}\n",
		EXIT_CHECK_FAILED, "run.log:3: event after the CAPTURE END marker");
	refused("a second BEGIN", read_serial, "CAPTURE BEGIN x\nCAPTURE BEGIN x\n",
		EXIT_CHECK_FAILED, "run.log:2: a second CAPTURE BEGIN marker");
	refused("END without BEGIN", read_serial, "boot\nCAPTURE END 0\n",
		EXIT_CHECK_FAILED,
		"run.log:2: CAPTURE END without a CAPTURE BEGIN before it");
	refused("END without a count", read_serial, "CAPTURE BEGIN x\nCAPTURE END\n",
		EXIT_BAD_INPUT, "run.log:2: CAPTURE END needs the number of events");
	refused("END counting more", read_serial,
		"CAPTURE BEGIN x\n{\"seq\":0}\nCAPTURE END 3\n",
		EXIT_CAPTURE_FAILED,
		"run.log:3: the emitter wrote 3 events, the stream has 1: 2 lost");
	refused("another system's events: at the first line", read_serial,
		"{\"event\":\"Apply\",\"proc\":0}\n{\"event\":\"Applied\"}\n",
		EXIT_BAD_INPUT, "run.log:1: a JSON object where a console's output was "
		"due: not a test capture (another system's events?)");
	refused("a JSON object amid the boot", read_serial, "boot\n {\"a\":1} \n",
		EXIT_BAD_INPUT, "run.log:2: a JSON object where a console's output was "
		"due: not a test capture (another system's events?)");
	reads("a brace that is no JSON object is noise", read_serial,
	      "{ boot\n{\"a\":1} x\nCAPTURE BEGIN x\n{\"seq\":0}\nCAPTURE END 1\n", 1, 1);
	refused("no BEGIN", read_serial, "boot\nlogin:\n", EXIT_CAPTURE_FAILED,
		"run.log:2: no CAPTURE BEGIN marker: not a test capture, or "
		"nothing was captured");
	refused("no END", read_serial, "CAPTURE BEGIN x\n{\"seq\":0}\n",
		EXIT_CAPTURE_FAILED,
		"run.log:2: stream ends without the CAPTURE END marker "
		"(truncated after 1 events)");
	if (read_serial(&in, "/nonexistent/run.log", &events, &err) != -1)
		fail("a stream that cannot be opened", "read it");
	else
		expect_err("a stream that cannot be opened", &err, EXIT_BAD_INPUT,
			   "run.log: cannot open: No such file or directory");
	long_name_whole();
	/* The reader can succeed: its events, in order, to the folder. */
	reads("a whole stream", read_serial, "noise\nCAPTURE BEGIN x\n{\"seq\":0}\n"
	      "x {\"seq\":1}\nCAPTURE END 2\n", 2, 2);
}

static void with_tla_fails(void)
{
	refused("neither kind of line", read_with_tla,
		"{\"name\":\"x\",\"nid\":\"1\"}\n{\"msg\":\"hi\"}\n", EXIT_BAD_INPUT,
		"run.log:2: neither a with_tla event nor a zap trace line");
	refused("a level that is no zap line's: at the first line", read_with_tla,
		"{\"event\":\"Applied\",\"level\":33}\n", EXIT_BAD_INPUT,
		"run.log:1: neither a with_tla event nor a zap trace line");
	refused("a line that is not JSON", read_with_tla, "{\"name\":\n",
		EXIT_BAD_INPUT, "run.log:1: not a JSON value");
	refused("a truncated last line", read_with_tla,
		"{\"name\":\"x\",\"nid\":\"1\"}", EXIT_BAD_INPUT,
		"run.log:1: truncated last line (no newline at end of file)");
	reads("a zap-wrapped trace: one event, one line skipped", read_with_tla,
	      "{\"level\":\"info\",\"msg\":\"start\"}\n"
	      "{\"level\":\"info\",\"tag\":\"trace\",\"event\":{\"name\":\"x\"}}\n",
	      1, 1);
}

static void *no_context(struct fold_run *run, const struct pgo_process *procs,
			size_t n)
{
	(void)run;
	(void)procs;
	(void)n;
	return NULL;
}

static void no_step(void *ctx, struct fold_run *run, const struct pgo_event *e)
{
	(void)ctx;
	(void)run;
	(void)e;
}

static const struct pgo_system test_system = {
	.name = "test", .begin = no_context, .end = no_marker,
	.archetypes = { { "A", no_step } },
};

/* Records of process A 1 and A 2, R(self, clock entries, isAbort). */
#define R(self, clock, abort) "{\"archetypeName\":\"A\",\"self\":\"" self \
	"\",\"clock\":[" clock "],\"csElements\":[],\"isAbort\":" abort "}\n"
#define A1(n) "[[\"A\",\"1\"]," #n "]"
#define A2(n) "[[\"A\",\"2\"]," #n "]"

/*
 * A PGo run the merge refuses: its trace files (name, text), the failure's
 * kind and its message, in which %1$s is the run's directory.
 */
struct pgo_case {
	const char *name;
	const char *files[3][2];
	enum exit_code code;
	const char *msg;
};

static const struct pgo_case pgo_cases[] = {
	{ "no trace files", { { NULL } }, EXIT_BAD_INPUT,
	  "%1$s: no trace-*.log files" },
	{ "a first line cut short", { { "trace-1-a.log", "{" } }, EXIT_BAD_INPUT,
	  "%1$s/trace-1-a.log:1: truncated JSON line (no newline at end of file)" },
	{ "no archetype", { { "trace-1-a.log", "{\"self\":\"1\"}\n" } }, EXIT_BAD_INPUT,
	  "%1$s/trace-1-a.log:1: PGo record without string \"archetypeName\"" },
	{ "a file named for another process",
	  { { "trace-2-a.log", R("1", A1(1), "false") } }, EXIT_BAD_INPUT,
	  "%1$s/trace-2-a.log:1: record of A 1 in a file named for another process" },
	{ "a second file for a process",
	  { { "trace-1-a.log", R("1", A1(1), "false") },
	    { "trace-1-b.log", R("1", A1(1), "false") } }, EXIT_BAD_INPUT,
	  "%1$s/trace-1-b.log: second trace file for A 1 (first: %1$s/trace-1-a.log)" },
	{ "a record without clock",
	  { { "trace-1-a.log", "{\"archetypeName\":\"A\",\"self\":\"1\"}\n" } },
	  EXIT_BAD_INPUT,
	  "%1$s/trace-1-a.log:1: PGo record without clock array or isAbort" },
	{ "a later line cut short",
	  { { "trace-1-a.log", R("1", A1(1), "false") "{" } }, EXIT_BAD_INPUT,
	  "%1$s/trace-1-a.log:2: truncated JSON line (no newline at end of file)" },
	{ "an own clock that skips",
	  { { "trace-1-a.log", R("1", A1(1), "false") R("1", A1(3), "false") } },
	  EXIT_CHECK_FAILED,
	  "%1$s/trace-1-a.log:2: own clock of A 1 goes from 1 to 3 (must tick by one per record)" },
	{ "a clock entry going back",
	  { { "trace-1-a.log", R("1", A1(1) "," A2(1), "false") R("1", A1(2), "false") },
	    { "trace-2-a.log", R("2", A2(1), "false") } }, EXIT_CHECK_FAILED,
	  "%1$s/trace-1-a.log:2: clock entry for A 2 goes back from 1 to 0" },
	{ "an event its file does not hold",
	  { { "trace-1-a.log", R("1", A1(1) "," A2(2), "false") },
	    { "trace-2-a.log", R("2", A2(1), "false") } }, EXIT_CHECK_FAILED,
	  "%1$s/trace-1-a.log:1: depends on event 2 of A 2, but %1$s/trace-2-a.log ends after 1 records" },
	{ "clocks in a cycle",
	  { { "trace-1-a.log", R("1", A1(1) "," A2(1), "false") },
	    { "trace-2-a.log", R("2", A1(1) "," A2(1), "false") } }, EXIT_CHECK_FAILED,
	  "%1$s/trace-1-a.log:1: waits on event 1 of A 2 (%1$s/trace-2-a.log:1), which waits on it in turn: the vector clocks form a cycle" },
	{ "an archetype of another system",
	  { { "trace-1-a.log", "{\"archetypeName\":\"B\",\"self\":\"1\",\"clock\":[[[\"B\",\"1\"],1]],\"csElements\":[],\"isAbort\":false}\n" } },
	  EXIT_BAD_INPUT, "%1$s/trace-1-a.log:1: archetype B is not part of test" },
	{ "no committed record",
	  { { "trace-1-a.log", R("1", A1(1), "true") } }, EXIT_CHECK_FAILED,
	  "%1$s: no committed records: the trace files hold no committed critical section" },
};

/* pgo_fold() of @input fails with @code and @msg. */
static void pgo_refuses(const char *name, const char *input, enum exit_code code,
			const char *msg)
{
	struct fold_run run = { .name = "r", .input = input, .path = input };
	struct cap_err err;
	int rc;

	run.events = events_open(NULL, "events/r.ndjson");
	run.info = cJSON_CreateObject();
	rc = pgo_fold(&run, &test_system, &err);
	events_close(run.events);
	cJSON_Delete(run.info);
	if (!rc)
		fail(name, "folded it");
	else
		expect_err(name, &err, code, msg);
}

/* Case @c in directory @dir (made here). */
static void pgo_case(const struct pgo_case *c, const char *dir)
{
	char *want = xasprintf(c->msg, dir);

	mkdir(dir, 0755);
	for (int i = 0; i < 3 && c->files[i][0]; i++) {
		char *file = xasprintf("%s/%s", dir, c->files[i][0]);

		write_file(file, c->files[i][1], strlen(c->files[i][1]));
		free(file);
	}
	pgo_refuses(c->name, dir, c->code, want);
	free(want);
}

static void pgo_fails(void)
{
	char root[] = "/tmp/test-reader-errors-pgo-XXXXXX", *want;

	if (!mkdtemp(root)) {
		fail("PGo runs", "mkdtemp failed");
		return;
	}
	want = xasprintf("%s: not a directory of PGo trace-*.log files", path);
	pgo_refuses("not a directory", path, EXIT_BAD_INPUT, want);
	free(want);
	for (size_t i = 0; i < sizeof(pgo_cases) / sizeof(pgo_cases[0]); i++) {
		char *dir = xasprintf("%s/%zu", root, i);

		pgo_case(&pgo_cases[i], dir);
		free(dir);
	}
	remove_tree(root);
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0) {
		fail("a temporary file", "mkstemp failed");
		return unit_status();
	}
	close(fd);
	serial_fails();
	with_tla_fails();
	pgo_fails();
	unlink(path);
	return unit_status();
}
