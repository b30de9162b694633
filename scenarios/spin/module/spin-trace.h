/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spin module's own trace events (trace system capture_spin): each
 * operation as it happens, the slow path of the scenario's lock seen by a
 * kretprobe, and the run's framing.  They land in the ftrace ring buffer
 * with CPU and time stamp; the host decodes them with libtraceevent by the
 * field names below (capture/readers/ftrace.c, folders/spin/spin-ftrace.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM capture_spin

#if !defined(CAPTURE_SPIN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CAPTURE_SPIN_TRACE_H

#include <linux/tracepoint.h>
#include "module-trace.h"

/* What the guest runs: which slow path a waiter takes depends on these. */
TRACE_EVENT(spin_begin,
	TP_PROTO(const char *name, unsigned int nsteps, unsigned int cpus,
		 bool hypervisor, bool pv_slowpath),
	TP_ARGS(name, nsteps, cpus, hypervisor, pv_slowpath),
	TP_STRUCT__entry(
		__string(name, name)
		__field(unsigned int, nsteps)
		__field(unsigned int, cpus)
		__field(u8, hypervisor)
		__field(u8, pv_slowpath)
	),
	TP_fast_assign(
		__assign_str(name, name);
		__entry->nsteps = nsteps;
		__entry->cpus = cpus;
		__entry->hypervisor = hypervisor;
		__entry->pv_slowpath = pv_slowpath;
	),
	TP_printk("name=%s nsteps=%u cpus=%u hypervisor=%u pv_slowpath=%u",
		  __get_str(name), __entry->nsteps, __entry->cpus, __entry->hypervisor,
		  __entry->pv_slowpath)
);

/* One operation of the scenario (the JSON channel's line, as it happens). */
TRACE_EVENT(spin_op,
	TP_PROTO(unsigned int seq, unsigned int actor, unsigned int action,
		 bool locked, const void *lock),
	TP_ARGS(seq, actor, action, locked, lock),
	TP_STRUCT__entry(
		__field(unsigned int, seq)
		__field(u8, actor)
		__field(u8, action)
		__field(u8, locked)
		__field(unsigned long, lock)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->actor = actor;
		__entry->action = action;
		__entry->locked = locked;
		__entry->lock = (unsigned long)lock;
	),
	TP_printk("seq=%u actor=%u action=%u locked=%u lock=%lx",
		  __entry->seq, __entry->actor, __entry->action,
		  __entry->locked, __entry->lock)
);

/* native_queued_spin_lock_slowpath(lock, val) entered (exit = 0) or left. */
TRACE_EVENT(spin_slowpath,
	TP_PROTO(bool exit, const void *lock, unsigned int val),
	TP_ARGS(exit, lock, val),
	TP_STRUCT__entry(
		__field(u8, exit)
		__field(unsigned int, val)
		__field(unsigned long, lock)
	),
	TP_fast_assign(
		__entry->exit = exit;
		__entry->val = val;
		__entry->lock = (unsigned long)lock;
	),
	TP_printk("%s lock=%lx val=%x", __entry->exit ? "exit" : "entry",
		  __entry->lock, __entry->val)
);

/* The run is over: @nevents spin_op events were emitted (module-trace.h). */
TRACE_EVENT_RUN_END(spin_end);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE spin-trace
#include <trace/define_trace.h>
