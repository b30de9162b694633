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
 * Failures are returned: -1 or NULL and a struct cap_err whose message
 * names the trace, as die_at() would.
 */
#ifndef QEMU_FTRACE_H
#define QEMU_FTRACE_H

#include <stddef.h>
#include "../err.h"

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

/*
 * Decode the trace channel at @path (kept, not copied); NULL and @err on
 * bad input (EXIT_BAD_INPUT) or lost events (EXIT_CAPTURE_FAILED).
 */
struct ftrace *ftrace_open(const char *path, struct cap_err *err);
void ftrace_close(struct ftrace *t);

/* CPUs whose buffers were shipped. */
int ftrace_cpus(const struct ftrace *t);
/* CPU @cpu's records, in its buffer's order (which is time order). */
const struct ftrace_record *ftrace_records(const struct ftrace *t, int cpu,
					   size_t *n);
/*
 * The number field @field of @r into *@v; -1 and @err (EXIT_BAD_INPUT,
 * naming the event) if its format has none.
 */
int ftrace_num(const struct ftrace *t, const struct ftrace_record *r,
	       const char *field, unsigned long long *v, struct cap_err *err);
/* The string field @field of @r (a __string: caller frees); NULL and @err as ftrace_num(). */
char *ftrace_str(const struct ftrace *t, const struct ftrace_record *r,
		 const char *field, struct cap_err *err);

/* Is @r a @system:@event record? */
int ftrace_is_event(const struct ftrace_record *r, const char *system,
		    const char *event);

/*
 * The one @system:@event record of the trace.  Two of them are NULL and
 * @err of kind EXIT_CHECK_FAILED, none of kind EXIT_CAPTURE_FAILED (events
 * were lost), naming the trace.
 */
const struct ftrace_record *ftrace_only(const struct ftrace *t, const char *system,
					const char *event, struct cap_err *err);

/*
 * The records @system:@event by their field "seq": @n of them (the count
 * that @end_event, the run's closing event, gave), seq 0 .. n-1 each once.
 * Returns a table of @n pointers (caller frees).  A seq twice or out of
 * range is NULL and @err of kind EXIT_CHECK_FAILED, a seq missing of kind
 * EXIT_CAPTURE_FAILED (events were lost), naming the trace.
 */
const struct ftrace_record **ftrace_by_seq(const struct ftrace *t, const char *system,
					   const char *event, const char *end_event,
					   size_t n, struct cap_err *err);

/* Does @path hold a trace channel (it starts with "CAPTURE TRACE")? */
int ftrace_is(const char *path);

/*
 * The run's JSON channel @json must be byte for byte @len bytes of @plain,
 * what its trace channel @trace decodes to (the cross-check of the two
 * paths); -1 and @err of kind EXIT_CAPTURE_FAILED naming the first line
 * that differs.
 */
int ftrace_cross_check(const char *trace, const char *json, const char *plain,
		       size_t len, struct cap_err *err);

#endif
