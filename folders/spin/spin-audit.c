// SPDX-License-Identifier: MIT
/*
 * spin's audit domain, exhaustive: 3 pre-states (free, held by 0, held by
 * 1) x 6 actions with their data (AcquireLock by thread 0|1 with callType
 * lock|try, ReleaseLock by thread 0|1) = 18 cells, all reachable on a real
 * kernel (spin-domain.h):
 *
 * - a lock() on a lock the other thread holds starts spinning: a window
 *   of its own, whose post equals its pre (the folder draws another when
 *   it takes the lock, from the free state);
 * - a lock() by the holder spins forever: a call observed never
 *   completing, shown apart;
 * - a release by the thread that does not hold the lock, or of a free
 *   lock: spin_unlock() checks no owner, the lock is free afterwards.
 *
 * The extended projection's domain, with who spins, is spin-spinning.c's.
 */
#include "../../capture/audit.h"
#include "../../capture/fold.h"
#include "spin-domain.h"

static void spin_axes(struct audit_axes *ax, const cJSON *learned)
{
	(void)learned;
	spin_domain_axes(ax, 0);
}

static int spin_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	return spin_domain_classify(w, row, col, 0);
}

const struct audit_domain spin_audit = {
	.describes = "exhaustive: pre-state x action with its data (thread, "
		     "callType)",
	.axes = spin_axes,
	.classify = spin_classify,
};
