// SPDX-License-Identifier: MIT
/*
 * spin's audit domain, exhaustive: 3 pre-states (free, held by 0, held by
 * 1) x 6 actions with their data (AcquireLock by thread 0|1 with callType
 * lock|try, ReleaseLock by thread 0|1) = 18 cells.
 *
 * Impossible: a lock() window on a held lock.  lock() returns only once
 * it took the lock, and took it free: the window of a lock() that waited
 * for the other thread's release is drawn when it succeeds, from the free
 * state (the folder refuses an AcquireSuccess on a held lock); a lock() by
 * the holder never returns, which the audit shows as a call observed never
 * completing.  A release by a thread that does not hold the lock is not
 * impossible: spin_unlock() checks no owner (a misuse, which the module
 * and folder refuse, but the kernel would do it), so those cells stay
 * reachable.
 */
#include <stdio.h>
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

static const char *spin_impossible(const char *row, const char *col)
{
	int holder, thread;
	char call[8];

	if (sscanf(row, "held by %d", &holder) != 1 ||
	    sscanf(col, "AcquireLock(%d, %7[a-z])", &thread, call) != 2 ||
	    strcmp(call, "lock"))
		return NULL;
	if (thread == holder)
		return "lock() by the holder spins forever: it never returns";
	return "lock() returns only once it took the lock, from the free "
	       "state after the holder's release";
}

const struct audit_domain spin_audit = {
	.describes = "exhaustive: pre-state x action with its data (thread, "
		     "callType)",
	.axes = spin_axes,
	.classify = spin_classify,
	.impossible = spin_impossible,
};
