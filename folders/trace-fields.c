// SPDX-License-Identifier: MIT
/* A trace folder's reads of a record's fields, dying on a missing one (trace-fields.h). */
#include "../capture/err.h"
#include "trace-fields.h"

unsigned long long trace_num(const struct ftrace *t, const struct ftrace_record *r,
			     const char *field)
{
	struct cap_err err;
	unsigned long long v;

	if (ftrace_num(t, r, field, &v, &err))
		die_err(&err);
	return v;
}

char *trace_str(const struct ftrace *t, const struct ftrace_record *r,
		const char *field)
{
	struct cap_err err;
	char *v = ftrace_str(t, r, field, &err);

	if (!v)
		die_err(&err);
	return v;
}
