// SPDX-License-Identifier: MIT
/*
 * The bpf/ libraries return their failures (capture/err.h) instead of
 * dying: each case below would have ended the process before; here the
 * test goes on and reads the kind and the message the command would print.
 * The runs that fail (gp_run()): test-bpf-run.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpf/engine.h"
#include "bpf/readplan.h"
#include "capture/err.h"
#include "capture/proc.h"
#include "unit.h"

static void open_fails(const char *self)
{
	struct gp_engine *e;
	char text[] = "/tmp/test-bpf-errors-XXXXXX";
	char *want;
	struct cap_err err;
	int fd = mkstemp(text);

	if (fd < 0 || write(fd, "not code\n", 9) != 9) {
		fail("a text file", "cannot write %s", text);
		return;
	}
	close(fd);
	check("no such file: NULL", !probe_open("/nonexistent/x", &err), "opened");
	expect_err("no such file", &err, EXIT_BAD_INPUT, "/nonexistent/x: cannot open");
	check("a text file: NULL", !probe_open(text, &err), "opened");
	want = xasprintf("%s: not an ELF file", text);
	expect_err("a text file", &err, EXIT_BAD_INPUT, want);
	free(want);
	unlink(text);
	/* This test is C with DWARF (-g): the System V engine's, not Go's. */
	e = gp_open(self, &err);
	check("C with DWARF: opened", e != NULL, "refused");
	check("C with DWARF: the System V ABI", e && probe_abi(gp_binary(e)) == PROBE_ABI_SYSV,
	      "another ABI");
	if (e)
		gp_close(e);
}

static void func_fails(const char *self)
{
	struct cap_err err;
	struct probe_binary *b = probe_open(self, &err);
	struct probe_func f;
	char *want;

	if (!b) {
		fail("no such function", "%s", err.msg);
		return;
	}
	check("no such function: -1", probe_func(b, "main.nothere", &f, &err) == -1,
	      "found");
	want = xasprintf("%s: no function main.nothere", self);
	expect_err("no such function", &err, EXIT_BAD_INPUT, want);
	free(want);
	check("main resolves", probe_func(b, "main", &f, &err) == 0 &&
	      f.nret > 0, err.msg);
	probe_close(b);
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

int main(int argc, char **argv)
{
	(void)argc;
	open_fails(argv[0]);
	func_fails(argv[0]);
	plan_fails();
	return unit_status();
}
