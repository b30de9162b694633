// SPDX-License-Identifier: MIT
/*
 * spin's audit domain, exhaustive: 3 pre-states (free, held by 0, held by
 * 1) x 6 actions with their data (AcquireLock by thread 0|1 with callType
 * lock|try, ReleaseLock by thread 0|1) = 18 cells.  Some are impossible
 * (a release by the thread that does not hold the lock); they stay in the
 * domain so that the audit shows them as never observed rather than
 * deciding what a spec must allow.
 */
#include <string.h>
#include "../capture/audit.h"
#include "../capture/json.h"
#include "folder.h"

#define THREADS 2

static const char *const call_types[] = { "lock", "try" };

static void spin_axes(struct audit_axes *ax, const cJSON *learned)
{
	(void)learned;
	audit_add_row(ax, "free");
	for (int t = 0; t < THREADS; t++)
		audit_add_row(ax, "held by %d", t);
	for (int t = 0; t < THREADS; t++)
		for (int c = 0; c < 2; c++)
			audit_add_col(ax, "AcquireLock(%d, %s)", t, call_types[c]);
	for (int t = 0; t < THREADS; t++)
		audit_add_col(ax, "ReleaseLock(%d)", t);
}

static int spin_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	const cJSON *held = json_get(w->pre, "lockHeld");
	long long holder, thread;
	const char *call = json_get_str(w->data, "callType");

	if (json_get_int(w->data, "thread", &thread))
		return 0;
	if (cJSON_IsFalse(held))
		strbuf_addstr(row, "free");
	else if (cJSON_IsTrue(held) && !json_get_int(w->pre, "lockHolder", &holder))
		strbuf_addf(row, "held by %lld", holder);
	else
		return 0;
	if (!strcmp(w->action, "ReleaseLock"))
		strbuf_addf(col, "ReleaseLock(%lld)", thread);
	else if (!strcmp(w->action, "AcquireLock") && call)
		strbuf_addf(col, "AcquireLock(%lld, %s)", thread, call);
	else
		return 0;
	return 1;
}

const struct audit_domain spin_audit = {
	.describes = "exhaustive: pre-state x action with its data (thread, "
		     "callType)",
	.axes = spin_axes,
	.classify = spin_classify,
};
