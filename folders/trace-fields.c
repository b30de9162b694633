// SPDX-License-Identifier: MIT
/* What the trace folders read alike, dying on a trace's faults (trace-fields.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
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

/* The one @system:@name@suffix record. */
static const struct ftrace_record *only(const struct ftrace *t, const char *system,
					const char *name, const char *suffix)
{
	char *event = xasprintf("%s%s", name, suffix);
	struct cap_err err;
	const struct ftrace_record *r = ftrace_only(t, system, event, &err);

	free(event);
	if (!r)
		die_err(&err);
	return r;
}

const struct ftrace_record **trace_ops(const struct ftrace *t, const char *system,
				       const char *name,
				       const struct ftrace_record **begin,
				       const struct ftrace_record **end, size_t *n)
{
	char *op = xasprintf("%s_op", name), *closing = xasprintf("%s_end", name);
	const struct ftrace_record **by_seq;
	struct cap_err err;

	*begin = only(t, system, name, "_begin");
	*end = only(t, system, name, "_end");
	*n = trace_num(t, *end, "nevents");
	by_seq = ftrace_by_seq(t, system, op, closing, *n, &err);
	free(closing);
	free(op);
	if (!by_seq)
		die_err(&err);
	return by_seq;
}

char *fold_run_decoded(struct fold_run *run,
		       void (*decode)(const char *trace, const char *json,
				      const char *out, cJSON *info),
		       int *cleanup)
{
	char *path;
	cJSON *trace;
	int fd;

	if (!ftrace_is(run->path))
		return NULL;
	path = owned_tmp_in(temp_dir(), "capture-decoded");
	fd = mkstemp_on_failure(path, cleanup);
	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", path,
		    strerror(errno));
	close(fd);
	trace = json_obj();
	decode(run->path, NULL, path, trace);
	json_add(run->info, "trace", trace);
	return path;
}

void fold_run_decoded_done(char *stream, int cleanup)
{
	if (!stream)
		return;
	remove(stream);
	cancel_on_failure(cleanup);
	free(stream);
}
