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
 * impossible ones give their reasons (spin-domain.c).  Those the lock
 * itself forbids from a state it can be in (a spinner's call) give an
 * impossibility window each; the module's choices and the pre-states
 * that are never the state give none.
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
static int cell_of(const char *row, const char *col, struct spin_pre *p,
		   struct spin_col *c)
{
	struct strbuf r = STRBUF_INIT, k = STRBUF_INIT;
	int found = 0;

	for (int i = 0; i < SPIN_NPRE && !found; i++) {
		for (int j = 0; j < SPIN_NCOL && !found; j++) {
			spin_pre_label(&r, spin_pre_at(i), 1);
			spin_col_label(&k, spin_col_at(j));
			if (!strcmp(r.buf, row) && !strcmp(k.buf, col)) {
				*p = spin_pre_at(i), *c = spin_col_at(j);
				found = 1;
			}
			strbuf_reset(&r);
			strbuf_reset(&k);
		}
	}
	strbuf_release(&r);
	strbuf_release(&k);
	return found;
}

static const char *spinning_impossible(const char *row, const char *col)
{
	struct spin_pre p;
	struct spin_col c;

	return cell_of(row, col, &p, &c) ? spin_cell_impossible(p, c) : NULL;
}

static cJSON *state(int holder, unsigned int spinning)
{
	cJSON *st = json_obj(), *set;

	json_add(st, "lockHeld", json_bool(holder != SPIN_NO_HOLDER));
	json_add(st, "lockHolder", holder == SPIN_NO_HOLDER ? json_null() :
		 json_int(holder));
	set = json_add(st, "spinning", json_arr());
	for (int t = 0; t < SPIN_THREADS; t++)
		if (spinning & (1u << t))
			json_add(set, NULL, json_int(t));
	return st;
}

/*
 * The spinner's call of a cell the lock forbids, taken as if it could
 * be: a lock() returns holding the lock (no longer spinning), a try takes
 * a free lock and fails on a held one, a release frees the lock.
 */
static cJSON *spinning_impossible_windows(const char *row, const char *col)
{
	static const char *const call_types[] = { "lock", "try" };
	struct spin_pre p;
	struct spin_col c;
	cJSON *all, *w, *input;
	int holder;
	unsigned int spinning;

	if (!cell_of(row, col, &p, &c) || !spin_cell_forbidden_by_lock(p, c))
		return NULL;
	holder = p.holder, spinning = p.spinning;
	if (c.call == SPIN_CALL_LOCK)
		holder = c.thread, spinning &= ~(1u << c.thread);
	else if (c.call == SPIN_CALL_TRY && holder == SPIN_NO_HOLDER)
		holder = c.thread;
	else if (c.call == SPIN_CALL_RELEASE)
		holder = SPIN_NO_HOLDER;
	all = json_arr();
	w = json_add(all, NULL, json_obj());
	json_add(w, "action", json_str(c.call == SPIN_CALL_RELEASE ?
				       "ReleaseLock" : "AcquireLock"));
	input = json_add(w, "input", json_obj());
	json_add(input, "thread", json_int(c.thread));
	if (c.call != SPIN_CALL_RELEASE)
		json_add(input, "callType", json_str(call_types[c.call]));
	json_add(w, "pre_state", state(p.holder, p.spinning));
	json_add(w, "post_state", state(holder, spinning));
	return all;
}

static const struct audit_domain spinning_audit = {
	.describes = "exhaustive: pre-state with who spins x action with its "
		     "data (thread, callType)",
	.axes = spinning_axes,
	.classify = spinning_classify,
	.impossible = spinning_impossible,
	.impossible_windows = spinning_impossible_windows,
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
