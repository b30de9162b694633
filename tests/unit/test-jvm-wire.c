// SPDX-License-Identifier: MIT
/*
 * What capture's side of the JVM engine (jvm/engine.c) accepts from the
 * agents' FIFO and what it refuses: messages written by hand as agents
 * write them (jvm/wire.h), read by the engine's own reader thread.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpf/goprobe.h"
#include "jvm/engine.h"
#include "jvm/wire.h"
#include "tests/unit/unit.h"

static int seen_exec, seen_records;
static unsigned long long last_val;

static void count(const struct gp_record *r, void *arg)
{
	(void)arg;
	if (r->site == GP_SITE_EXEC)
		seen_exec++;
	else
		seen_records++, last_val = r->val[1];
}

/* The FIFO's path, as the engine hands it to an agent. */
static int fifo_of(struct jvm_engine *e)
{
	const char *opt = strstr(jvm_agent_option(e, "run"), "out=");
	int fd = open(opt + 4, O_WRONLY);

	if (fd < 0)
		abort();
	return fd;
}

static void say(int fd, uint32_t pid, uint32_t kind, uint64_t seq, const void *body, uint32_t len)
{
	struct jw_head h = { .magic = JW_MAGIC, .kind = kind, .pid = pid, .len = len, .seq = seq };
	char buf[JW_MAX];

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), body, len);
	if (write(fd, buf, sizeof(h) + len) != (ssize_t)(sizeof(h) + len))
		abort();
}

/* Feed @n messages of pid 7 (kinds, seqs), then stop: the engine's verdict. */
static int feed(const uint32_t *kinds, const uint64_t *seqs, int n, int killed,
		struct cap_err *err)
{
	struct cap_err e0;
	struct jvm_engine *e = jvm_open(NULL, "x.probes", &e0);
	struct gp_record r = { .site = 3, .val = { 0, 42 } };
	uint32_t pid = 7;
	uint64_t total = 3;
	int fd, rc;

	if (!e)
		abort();
	seen_exec = seen_records = 0;
	jvm_start(e, count, NULL);
	fd = fifo_of(e);
	for (int i = 0; i < n; i++) {
		if (kinds[i] == JW_HELLO)
			say(fd, 7, JW_HELLO, seqs[i], &pid, sizeof(pid));
		else if (kinds[i] == JW_RECORD)
			say(fd, 7, JW_RECORD, seqs[i], &r, GP_REC_BYTES(2));
		else if (kinds[i] == JW_END)
			say(fd, 7, JW_END, seqs[i], &total, sizeof(total));
		else
			say(fd, 7, JW_REFUSE, seqs[i], "12\tno field x", 13);
	}
	close(fd);
	if (killed && !jvm_wait_hello(e, 7, 10))
		jvm_killed(e, 7);
	rc = jvm_stop(e, err);
	jvm_close(e);
	return rc;
}

int main(void)
{
	struct cap_err err = { 0 };
	static const uint32_t good[] = { JW_HELLO, JW_RECORD, JW_RECORD, JW_END };
	static const uint64_t seq[] = { 0, 1, 2, 3 }, gap[] = { 0, 1, 3, 4 };
	static const uint32_t refuse[] = { JW_HELLO, JW_REFUSE };
	static const uint32_t early_end[] = { JW_HELLO, JW_RECORD, JW_END };

	check("wire: a JVM's messages handed over", !feed(good, seq, 4, 0, &err) &&
	      seen_exec == 1 && seen_records == 2 && last_val == 42, cap_err_text(&err));
	if (!feed(good, gap, 4, 0, &err))
		fail("wire: a gap refused", "accepted");
	else
		expect_err("wire: a gap refused", &err, EXIT_CAPTURE_FAILED,
			   "JVM 7: message 3 where 2 was due: messages were lost");
	if (!feed(good, seq, 3, 0, &err))
		fail("wire: no last message refused", "accepted");
	else
		expect_err("wire: no last message refused", &err, EXIT_CAPTURE_FAILED,
			   "JVM 7 ended without its agent's last message (killed by a signal?): "
			   "what it did last may be lost");
	check("wire: no last message of a JVM killed on purpose",
	      !feed(good, seq, 3, 1, &err) && seen_records == 2, cap_err_text(&err));
	if (!feed(early_end, seq, 3, 0, &err))
		fail("wire: an end that counts otherwise refused", "accepted");
	else
		expect_err("wire: an end that counts otherwise refused", &err,
			   EXIT_CAPTURE_FAILED, "JVM 7: its agent sent 3 messages, 2 arrived");
	if (!feed(refuse, seq, 2, 1, &err))
		fail("wire: a refusal at the spec's line", "accepted");
	else
		expect_err("wire: a refusal at the spec's line", &err, EXIT_BAD_INPUT,
			   "x.probes:12: no field x");
	return unit_status();
}
