// SPDX-License-Identifier: MIT
/*
 * spin-spinning: the spin folder's extended projection (spin.c), its own
 * system so that a corpus, its windows and its audit say which projection
 * they are.  State {lockHeld, lockHolder, spinning}: spinning is the set
 * of actors inside a lock() begun on a lock another actor holds, until it
 * takes the lock.  The lock() that starts spinning is a window of its own
 * (pre: held by the other actor; post: the same, the caller spinning),
 * and each such lock() must show StopSpinning -- the kernel's slow path,
 * seen by capture spin's kretprobe -- before it gets the lock.
 *
 * Its audit domain: 12 pre-states (free, held by 0, held by 1, each with
 * nobody, 0, 1 or both spinning) x the 6 calls = 72 cells, of which the
 * impossible ones give their reasons (spin-domain.c).
 */
#include <string.h>
#include "../../capture/audit.h"
#include "spin.h"
#include "spin-domain.h"

static void spinning_axes(struct audit_axes *ax, const cJSON *learned)
{
	(void)learned;
	spin_domain_axes(ax, 1);
}

static int spinning_classify(const struct window *w, struct strbuf *row,
			     struct strbuf *col)
{
	return spin_domain_classify(w, row, col, 1);
}

/* The cell whose labels are @row and @col, by matching every cell's. */
static const char *spinning_impossible(const char *row, const char *col)
{
	struct strbuf r = STRBUF_INIT, c = STRBUF_INIT;
	const char *why = NULL;

	for (int i = 0; i < SPIN_NPRE; i++) {
		for (int j = 0; j < SPIN_NCOL; j++) {
			spin_pre_label(&r, spin_pre_at(i), 1);
			spin_col_label(&c, spin_col_at(j));
			if (!strcmp(r.buf, row) && !strcmp(c.buf, col))
				why = spin_cell_impossible(spin_pre_at(i),
							   spin_col_at(j));
			strbuf_reset(&r);
			strbuf_reset(&c);
		}
	}
	strbuf_release(&r);
	strbuf_release(&c);
	return why;
}

static const struct audit_domain spinning_audit = {
	.describes = "exhaustive: pre-state with who spins x action with its "
		     "data (thread, callType)",
	.axes = spinning_axes,
	.classify = spinning_classify,
	.impossible = spinning_impossible,
};

static void fold_spinning(struct fold_run *run)
{
	spin_fold(run, &folder_spin_spinning, SPIN_SPINNING);
}

/* spinning is a set of actors */
static const struct itf_var spinning_itf[] = {
	{ "lockHolder", "option" },
	{ "spinning", "set" },
	{ 0 }
};

const struct folder folder_spin_spinning = {
	.name = "spin-spinning",
	.summary = "spin with the actors spinning in lock() in the state "
		   "(the kernel's slow path, seen by capture spin's kretprobe)",
	.actions = spin_actions,
	.form = FORM_EVENT,
	.fold = fold_spinning,
	.audit = &spinning_audit,
	.itf = spinning_itf,
	.actor = spin_actor,
	.refines = &folder_spin,
};
