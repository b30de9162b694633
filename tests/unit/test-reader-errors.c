// SPDX-License-Identifier: MIT
/*
 * The byte-format readers of folders/ (serial.c, with-tla.c) return their
 * failures (capture/err.h) instead of dying: each stream below would have
 * ended the process before; here the test goes on and reads the kind and
 * the message (file:line) the folder would die with, and that the reader
 * closed its input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/err.h"
#include "folders/serial.h"
#include "folders/with-tla.h"
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
	/* The reader can succeed: its events, in order, to the folder. */
	reads("a whole stream", read_serial, "noise\nCAPTURE BEGIN x\n{\"seq\":0}\n"
	      "x {\"seq\":1}\nCAPTURE END 2\n", 2, 2);
}

static void with_tla_fails(void)
{
	refused("neither kind of line", read_with_tla,
		"{\"name\":\"x\",\"nid\":\"1\"}\n{\"msg\":\"hi\"}\n", EXIT_BAD_INPUT,
		"run.log:2: neither a with_tla event nor a zap trace line");
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
	unlink(path);
	return unit_status();
}
