// SPDX-License-Identifier: MIT
/* The with_tla trace's reader (with-tla.h). */
#include <string.h>
#include "../err.h"
#include "../json.h"
#include "with-tla.h"

/*
 * The with_tla event of one line into *@ev (NULL: a zap line that is not
 * a trace line, skipped: its level and msg strings); -1 if it is neither.
 */
static int trace_event(const struct line_reader *in, const cJSON *line,
		       const cJSON **ev, struct cap_err *err)
{
	const cJSON *inner = json_get(line, "event");
	const char *tag = json_get_str(line, "tag");

	*ev = NULL;
	if (json_get_str(line, "name") && json_get_str(line, "nid"))
		*ev = line;
	else if (cJSON_IsObject(inner) && tag && !strcmp(tag, "trace"))
		*ev = inner;
	else if (!cJSON_IsObject(inner) &&
		 !(json_get_str(line, "level") && json_get_str(line, "msg")))
		return cap_fail_at(err, EXIT_BAD_INPUT, in->path, in->line,
				   "neither a with_tla event nor a zap trace line");
	return 0;
}

/* Each line's event to @event; the number of lines skipped, or -1. */
static long long read_lines(struct line_reader *in,
			    void (*event)(void *ctx, const cJSON *ev), void *ctx,
			    struct cap_err *err)
{
	long long skipped = 0;
	/*
	 * In memory, not only in a register: when a check on the event dies,
	 * the line is still reachable, not a leak to LeakSanitizer.
	 */
	cJSON *volatile line;
	const cJSON *ev;

	for (;;) {
		cJSON *next;

		if (ndjson_try_next(in, &next, err))
			return -1;
		if (!(line = next))
			return skipped;
		if (trace_event(in, line, &ev, err)) {
			cJSON_Delete(line);
			return -1;
		}
		if (ev)
			event(ctx, ev);
		else
			skipped++;
		cJSON_Delete(line);
	}
}

long long with_tla_read(struct line_reader *in, const char *path, const char *as,
			void (*event)(void *ctx, const cJSON *ev), void *ctx,
			struct cap_err *err)
{
	long long skipped;

	if (line_reader_try_open_as(in, path, as, err))
		return -1;
	skipped = read_lines(in, event, ctx, err);
	line_reader_close(in);
	return skipped;
}
