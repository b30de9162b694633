/* SPDX-License-Identifier: MIT */
/*
 * What the trace folders read alike of a decoded trace (capture/readers/ftrace.h):
 * a fault found is the trace's, and the folder, whose own checks die as
 * they find one, dies with it, naming the trace: a field the event's
 * format lacks (EXIT_BAD_INPUT), framing events missing or twice, records
 * missing or twice by seq.
 */
#ifndef FOLDERS_TRACE_FIELDS_H
#define FOLDERS_TRACE_FIELDS_H

#include <cJSON.h>
#include "../capture/fold.h"
#include "../capture/readers/ftrace.h"

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

/*
 * A trace channel (a live capture's raw/RUN.ftrace, capture/readers/ftrace.h) is
 * first decoded by @decode (with no JSON channel to check against) into
 * the system's event stream, in a temporary file: returns its path, to be
 * handed to fold_run_decoded_done() once read, or NULL if run->path is a
 * stream already.  What the decoding found goes into the run's info
 * "trace".
 */
char *fold_run_decoded(struct fold_run *run,
		       void (*decode)(const char *trace, const char *json,
				      const char *out, cJSON *info),
		       int *cleanup);
void fold_run_decoded_done(char *stream, int cleanup);

#endif
