// SPDX-License-Identifier: MIT
/* The audit of window files: see audit-report.h. */
#include "audit-report.h"
#include "audit.h"

static void walk_window(void *ctx, size_t file, const struct window *w)
{
	(void)file;
	audit_pass_window(ctx, w);
}

/* The calls of run @wf that never returned, as windows without a post. */
static void walk_never_completing(struct audit_pass *p,
				  const struct window_file *wf)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, wf->never_completing) {
		struct window w = {
			.file = wf->path, .action = json_get_str(c, "action"),
			.data = json_get(c, "data"),
			.pre = json_get(c, "pre_state"),
		};

		audit_pass_window(p, &w);
	}
}

cJSON *audit_report(const struct window_set *ws)
{
	struct audit_pass *p = audit_pass_begin(ws->system);

	for (size_t f = 0; f < ws->n; f++) {
		audit_pass_run(p, ws->files[f].label);
		window_set_walk(ws, f, walk_window, p);
		walk_never_completing(p, &ws->files[f]);
	}
	return audit_pass_report(p);
}
