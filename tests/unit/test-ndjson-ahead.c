// SPDX-License-Identifier: MIT
/*
 * The read-ahead thread's hand-over at the end of a file: every record
 * reaches the consumer, then the end (NULL, for good), and a bad last line
 * kills the consumer when it gets there -- never a NULL in its place, the
 * shortened run the reader used to hand over when the consumer looked in
 * between the reader marking the file done and publishing its last slot.
 * That window is a few instructions wide, so the bad-line case is run many
 * times, each in a child that must die with EXIT_BAD_INPUT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "capture/die.h"
#include "capture/err.h"
#include "capture/ndjson-ahead.h"
#include "unit.h"

#define ROUNDS 200

static char dir[] = "/tmp/test-ndjson-ahead-XXXXXX";

static char *write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

/* A file of @n records {"n":0}, {"n":1}, ... */
static char *records(const char *name, int n)
{
	struct strbuf sb = STRBUF_INIT;
	char *path;

	for (int i = 0; i < n; i++)
		strbuf_addf(&sb, "{\"n\":%d}\n", i);
	path = write_file(name, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
	return path;
}

/* Take @a's next record of file @i: its "n", -1 at the end. */
static long long take(struct ndjson_ahead *a, size_t i)
{
	void *prepared;
	long long n = -2;
	long line;
	struct json_tokens *t;
	struct cap_err err;

	/* A bad line: the consumer dies, as a folder does. */
	if (ndjson_ahead_next(a, i, &t, &line, &prepared, &err))
		die_err(&err);
	if (!t)
		return -1;
	json_integer(t, json_member(t, 0, "n"), &n);
	ndjson_ahead_release(a, i);
	return n;
}

/*
 * Files of 1000, 1 and 0 records taken in turns: each in order, complete,
 * and at its end NULL every time it is asked again.
 */
static void every_record_then_the_end(void)
{
	static const int sizes[] = { 1000, 1, 0 };
	struct line_reader r[3], *rs[3];
	long long want[3] = { 0 }, got;
	int ended[3] = { 0 }, ok = 1;
	struct ndjson_ahead *a;

	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		line_reader_open(&r[i], records(name, sizes[i]));
		rs[i] = &r[i];
	}
	a = ndjson_ahead_start(rs, 3, NULL);
	while (!(ended[0] && ended[1] && ended[2])) {
		for (int i = 0; i < 3; i++) {
			got = take(a, i);
			if (got == -1 && want[i] == sizes[i])
				ended[i]++;
			else if (got == want[i] && !ended[i])
				want[i]++;
			else
				ok = 0;
		}
	}
	for (int i = 0; i < 3; i++)
		ok &= take(a, i) == -1 && take(a, i) == -1;
	ndjson_ahead_stop(a);
	for (int i = 0; i < 3; i++) {
		line_reader_close(&r[i]);
		free((char *)r[i].path);
	}
	check("every record in order, then the end for good", ok,
	      "a record lost, repeated or out of order");
}

/* What prepare() keeps of a record: its file and its "n". */
struct seen {
	size_t file;
	long long n;
	char *buf;        /* allocated by prepare(), freed by release() */
};

static int releases;

static void remember(void *ctx, size_t file, struct json_tokens *t, void *state)
{
	struct seen *s = state;

	(void)ctx;
	s->file = file;
	s->n = -1;
	json_integer(t, json_member(t, 0, "n"), &s->n);
	if (!s->buf)
		s->buf = xstrdup("kept from record to record");
}

static void forget(void *state)
{
	struct seen *s = state;

	releases++;
	free(s->buf);
}

/*
 * A preparer's state reaches the consumer with its own record (or NULL
 * when the consumer ran ahead and must do the work), and release() frees
 * every slot's at the end.
 */
static void prepared_states_go_with_their_records(void)
{
	const struct ndjson_preparer p = {
		.prepare = remember, .release = forget,
		.size = sizeof(struct seen),
	};
	struct line_reader r[2], *rs[2];
	struct ndjson_ahead *a;
	int ok = 1, prepared = 0;

	for (int i = 0; i < 2; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		line_reader_open(&r[i], records(name, 500));
		rs[i] = &r[i];
	}
	a = ndjson_ahead_start(rs, 2, &p);
	for (long long n = 0; n < 500; n++) {
		for (size_t i = 0; i < 2; i++) {
			void *state;
			long line;
			long long got = -2;
			struct json_tokens *t;
			struct cap_err err;
			struct seen *s;

			ok &= !ndjson_ahead_next(a, i, &t, &line, &state, &err);
			s = state;

			json_integer(t, json_member(t, 0, "n"), &got);
			ok &= got == n;
			if (s) {
				prepared++;
				ok &= s->file == i && s->n == n && s->buf;
			}
			ndjson_ahead_release(a, i);
		}
		/* let the reader get ahead now and then */
		if (n % 100 == 0)
			usleep(20000);
	}
	ndjson_ahead_stop(a);
	for (int i = 0; i < 2; i++) {
		line_reader_close(&r[i]);
		free((char *)r[i].path);
	}
	check("a prepared state goes with its record", ok && prepared,
	      prepared ? "a state with another record's data" :
	      "no record was prepared");
	/* that it frees them all, LeakSanitizer checks (make asan) */
	check("release() is called for the slots' states", releases >= 2,
	      "never called");
}

/* Child: read @path to its bad last line; exits 0 only if it got a NULL. */
static _Noreturn void read_to_bad_line(const char *path)
{
	struct line_reader r, *rs = &r;
	struct ndjson_ahead *a;

	if (!freopen("/dev/null", "w", stderr))
		_exit(1);
	line_reader_open(&r, path);
	a = ndjson_ahead_start(&rs, 1, NULL);
	if (take(a, 0) != 0)
		_exit(1);
	take(a, 0);
	_exit(0);
}

static void bad_last_line_dies(void)
{
	char *path = write_file("bad", "{\"n\":0}\n{\"n\":\n");
	int shortened = 0, other = 0, status;

	fflush(stdout);
	for (int i = 0; i < ROUNDS; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		if (!pid)
			read_to_bad_line(path);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			other++;
		else if (WEXITSTATUS(status) == 0)
			shortened++;
		else if (WEXITSTATUS(status) != EXIT_BAD_INPUT)
			other++;
	}
	char why[96];

	snprintf(why, sizeof(why), "%d of %d runs ended early without the "
		 "error, %d died otherwise", shortened, ROUNDS, other);
	check("a bad last line kills the consumer, every time",
	      !shortened && !other, why);
	unlink(path);
	free(path);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	every_record_then_the_end();
	prepared_states_go_with_their_records();
	bad_last_line_dies();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return unit_status();
}
