// SPDX-License-Identifier: MIT
/* The with_tla trace's reader (with-tla.h). */
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "with-tla.h"

/* The with_tla event of one line (NULL: not a trace line). */
static const cJSON *trace_event(const struct line_reader *in, const cJSON *line)
{
	const cJSON *ev = json_get(line, "event");
	const char *tag = json_get_str(line, "tag");

	if (json_get_str(line, "name") && json_get_str(line, "nid"))
		return line;
	if (cJSON_IsObject(ev) && tag && !strcmp(tag, "trace"))
		return ev;
	if (cJSON_IsObject(ev) || json_get(line, "level"))
		return NULL;
	die_at(EXIT_BAD_INPUT, in->path, in->line,
	       "neither a with_tla event nor a zap trace line");
}

long long with_tla_read(struct line_reader *in, const char *path, const char *as,
			void (*event)(void *ctx, const cJSON *ev), void *ctx)
{
	long long skipped = 0;
	/*
	 * In memory, not only in a register: when a check on the event dies,
	 * the line is still reachable, not a leak to LeakSanitizer.
	 */
	cJSON *volatile line;

	line_reader_open_as(in, path, as);
	while ((line = ndjson_next(in))) {
		const cJSON *ev = trace_event(in, line);

		if (ev)
			event(ctx, ev);
		else
			skipped++;
		cJSON_Delete(line);
	}
	line_reader_close(in);
	return skipped;
}
