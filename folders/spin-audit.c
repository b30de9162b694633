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
#include "../capture/audit.h"
#include "folder.h"
#include "spin-domain.h"

static void spin_axes(struct audit_axes *ax, const cJSON *learned)
{
	struct strbuf sb = STRBUF_INIT;

	(void)learned;
	for (int i = 0; i < SPIN_NPRE; i++) {
		struct spin_pre p = spin_pre_at(i);

		if (p.spinning)
			continue;
		spin_pre_label(&sb, p, 0);
		audit_add_row(ax, "%s", sb.buf);
		strbuf_reset(&sb);
	}
	for (int j = 0; j < SPIN_NCOL; j++) {
		spin_col_label(&sb, spin_col_at(j));
		audit_add_col(ax, "%s", sb.buf);
		strbuf_reset(&sb);
	}
	strbuf_release(&sb);
}

static int spin_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	struct spin_pre p;
	struct spin_col c;

	if (!spin_cell_of(w->pre, w->action, w->data, 0, &p, &c))
		return 0;
	spin_pre_label(row, p, 0);
	spin_col_label(col, c);
	return 1;
}

const struct audit_domain spin_audit = {
	.describes = "exhaustive: pre-state x action with its data (thread, "
		     "callType)",
	.axes = spin_axes,
	.classify = spin_classify,
};
