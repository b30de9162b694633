/* SPDX-License-Identifier: MIT */
/*
 * What the trace folders read alike of a decoded trace (qemu/ftrace.h):
 * a fault found is the trace's, and the folder, whose own checks die as
 * they find one, dies with it, naming the trace: a field the event's
 * format lacks (EXIT_BAD_INPUT), framing events missing or twice, records
 * missing or twice by seq.
 */
#ifndef FOLDERS_TRACE_FIELDS_H
#define FOLDERS_TRACE_FIELDS_H

#include "../qemu/ftrace.h"

unsigned long long trace_num(const struct ftrace *t, const struct ftrace_record *r,
			     const char *field);
/* Caller frees. */
char *trace_str(const struct ftrace *t, const struct ftrace_record *r,
		const char *field);
/*
 * A module's run: its one @system:@name_begin and @name_end records into
 * *@begin and *@end, and its @name_op records by seq, as many as
 * @name_end's nevents counted (into *@n); caller frees the table.
 */
const struct ftrace_record **trace_ops(const struct ftrace *t, const char *system,
				       const char *name,
				       const struct ftrace_record **begin,
				       const struct ftrace_record **end, size_t *n);

#endif
