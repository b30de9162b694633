/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rwlock module's own trace events (trace system capture_rwlock): each
 * call and return of the scenario as it happens, and the run's framing.
 * They land in the ftrace ring buffer beside the kernel's own
 * lock:contention_begin/end, which the queued rwlock's slow paths fire;
 * the host decodes both with libtraceevent by the field names below
 * (folders/rwlock/rwlock-ftrace.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM capture_rwlock

#if !defined(CAPTURE_RWLOCK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CAPTURE_RWLOCK_TRACE_H

#include <linux/tracepoint.h>
#include "module-trace.h"

TRACE_EVENT(rwlock_begin,
	TP_PROTO(const char *name, unsigned int nsteps, unsigned int cpus),
	TP_ARGS(name, nsteps, cpus),
	TP_STRUCT__entry(
		__string(name, name)
		__field(unsigned int, nsteps)
		__field(unsigned int, cpus)
	),
	TP_fast_assign(
		__assign_str(name, name);
		__entry->nsteps = nsteps;
		__entry->cpus = cpus;
	),
	TP_printk("name=%s nsteps=%u cpus=%u", __get_str(name),
		  __entry->nsteps, __entry->cpus)
);

/*
 * One event of the scenario: @op's call (@ret 0) or return (@ret 1, @ok
 * what a trylock returned, 1 for the others); @lock is the rwlock's
 * address, which lock:contention_* name as lock_addr.
 */
TRACE_EVENT(rwlock_op,
	TP_PROTO(unsigned int seq, unsigned int actor, unsigned int op,
		 bool ret, bool ok, const void *lock),
	TP_ARGS(seq, actor, op, ret, ok, lock),
	TP_STRUCT__entry(
		__field(unsigned int, seq)
		__field(u8, actor)
		__field(u8, op)
		__field(u8, ret)
		__field(u8, ok)
		__field(unsigned long, lock)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->actor = actor;
		__entry->op = op;
		__entry->ret = ret;
		__entry->ok = ok;
		__entry->lock = (unsigned long)lock;
	),
	TP_printk("seq=%u actor=%u op=%u ret=%u ok=%u lock=%lx",
		  __entry->seq, __entry->actor, __entry->op, __entry->ret,
		  __entry->ok, __entry->lock)
);

/* The run is over: @nevents rwlock_op events were emitted (module-trace.h). */
TRACE_EVENT_RUN_END(rwlock_end);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rwlock-trace
#include <trace/define_trace.h>
