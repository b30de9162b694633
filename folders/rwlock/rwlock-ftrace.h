/* SPDX-License-Identifier: MIT */
/*
 * The rwlock guest's trace channel turned into the event stream the
 * rwlock folder reads: the module's capture_rwlock events
 * (module/rwlock-trace.h) in seq order, with the kernel's own
 * lock:contention_begin and contention_end of the scenario's lock as
 * lines of the call they happened in (its CPU's buffer order: after the
 * call, before its return).
 */
#ifndef FOLDERS_RWLOCK_FTRACE_H
#define FOLDERS_RWLOCK_FTRACE_H

#include <cJSON.h>

/*
 * Decode the trace channel @trace into the stream @out.  The stream less
 * its contention lines must be byte for byte @json, the run's JSON
 * channel, unless @json is NULL (a fold of a kept raw/RUN.ftrace).  Adds
 * to @info the guest's CPUs and the kernel's contention events of the
 * lock.  Dies with EXIT_CAPTURE_FAILED (lost events, the
 * channels disagree) or EXIT_CHECK_FAILED (contention no call explains,
 * or of the wrong kind), naming @trace.
 */
void rwlock_trace_decode(const char *trace, const char *json, const char *out,
			 cJSON *info);

#endif
