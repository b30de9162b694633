/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace event that ends every scenario module's run, which the host
 * reads alike for each (NAME_end's nevents: folders/trace-fields.c).  A
 * macro, so that each module's trace header, read several times over by
 * trace/define_trace.h, defines it as an event of its own trace system.
 * Built into each module with its own sources (qemu/module-guest.c).
 */
#ifndef MODULE_TRACE_H
#define MODULE_TRACE_H

/* The run is over: @nevents op events were emitted, @error if refused. */
#define TRACE_EVENT_RUN_END(call)					\
	TRACE_EVENT(call,						\
		TP_PROTO(unsigned int nevents, bool error),		\
		TP_ARGS(nevents, error),				\
		TP_STRUCT__entry(					\
			__field(unsigned int, nevents)			\
			__field(u8, error)				\
		),							\
		TP_fast_assign(						\
			__entry->nevents = nevents;			\
			__entry->error = error;				\
		),							\
		TP_printk("nevents=%u error=%u", __entry->nevents,	\
			  __entry->error)				\
	)

#endif
