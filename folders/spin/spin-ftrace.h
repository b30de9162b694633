/* SPDX-License-Identifier: MIT */
/*
 * The Linux spin guest's trace channel turned into the event stream the
 * spin folder reads.  The module's capture_spin events (module/spin-trace.h)
 * are decoded with libtraceevent (capture/readers/ftrace.h) and written as the event
 * lines of SysMoBench's Asterinas instrumentation, with StopSpinning before
 * an AcquireSuccess exactly where the kretprobe saw that CPU enter and
 * leave the kernel's slow path of the scenario's lock during that lock().
 */
#ifndef FOLDERS_SPIN_FTRACE_H
#define FOLDERS_SPIN_FTRACE_H

#include <cJSON.h>

/*
 * Decode the trace channel @trace into the stream @out.  The stream less
 * its StopSpinning lines must be byte for byte @json, the JSON channel
 * of the same run (the cross-check of the two paths), unless @json is
 * NULL (a fold of a kept raw/RUN.ftrace).  Adds to @info
 * what the guest's lock runs on (CPUs, hypervisor bit, paravirtual slow
 * path) and the kernel's evidence (slow-path entries and exits,
 * lock:contention_* of the lock).  Dies with EXIT_CAPTURE_FAILED (lost
 * events, the channels disagree, a lock() on a held lock without its
 * slow path) or EXIT_CHECK_FAILED (slow-path evidence that no lock()
 * explains), naming @trace.
 */
void spin_trace_decode(const char *trace, const char *json, const char *out,
		       cJSON *info);

#endif
