/* SPDX-License-Identifier: MIT */
/*
 * A trace folder's reads of a record's fields (qemu/ftrace.h): a field
 * the event's format lacks is bad input, and the folder, whose own checks
 * die as they find a fault, dies with it (EXIT_BAD_INPUT naming the trace
 * and the event).
 */
#ifndef FOLDERS_TRACE_FIELDS_H
#define FOLDERS_TRACE_FIELDS_H

#include "../qemu/ftrace.h"

unsigned long long trace_num(const struct ftrace *t, const struct ftrace_record *r,
			     const char *field);
/* Caller frees. */
char *trace_str(const struct ftrace *t, const struct ftrace_record *r,
		const char *field);

#endif
