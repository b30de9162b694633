/* SPDX-License-Identifier: MIT */
/*
 * The trace channel, decoded: what the guest's tracedump shipped
 * (qemu/guest/tracedump.c: events/header_page, event formats, per CPU its stats
 * and raw ring-buffer pages), read with libtraceevent -- the formats by
 * tep_parse_header_page / tep_parse_event, the pages by kbuffer, fields
 * by name.  No ring-buffer layout is parsed here by hand.
 *
 * Lost events fail the run (EXIT_CAPTURE_FAILED, with counts): a buffer's
 * overrun, commit-overrun or dropped-events count, a page kbuffer marks
 * as having missed events, a channel that stops before its end marker.
 */
#ifndef QEMU_FTRACE_H
#define QEMU_FTRACE_H

#include <stddef.h>

struct ftrace;

/* One ring-buffer record; valid while its struct ftrace is open. */
struct ftrace_record {
	int cpu;
	unsigned long long ts;	/* never compared or written: it varies */
	const char *system;	/* e.g. "capture_spin" */
	const char *name;	/* e.g. "spin_op" */
	void *data;
	int size;
};

/* Decode the trace channel at @path; dies on bad input or lost events. */
struct ftrace *ftrace_open(const char *path);
void ftrace_close(struct ftrace *t);

/* CPUs whose buffers were shipped. */
int ftrace_cpus(const struct ftrace *t);
/* CPU @cpu's records, in its buffer's order (which is time order). */
const struct ftrace_record *ftrace_records(const struct ftrace *t, int cpu,
					   size_t *n);
/* The number field @field of @r; dies naming the event if it has none. */
unsigned long long ftrace_num(const struct ftrace *t,
			      const struct ftrace_record *r, const char *field);
/* The string field @field of @r (a __string: caller frees). */
char *ftrace_str(const struct ftrace *t, const struct ftrace_record *r,
		 const char *field);

#endif
