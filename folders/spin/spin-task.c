// SPDX-License-Identifier: MIT
/*
 * spin-task: the spin folder's projection at SysMoBench's task
 * granularity (spin.c; tla_eval/skills/wv-eval/examples/spin): state
 * {lockState: locked|unlocked, pc: {"0": P, "1": P}}, P idle (in no call
 * and holding nothing), acquiring (inside lock() or try_lock()) or
 * locked (between its AcquireSuccess and its own Release); the actions
 * are the kernel's events, each {thread} (AcquireSuccess also callType,
 * which call returned): TryAcquireBlocking, TryAcquireNonBlocking,
 * AcquireSuccess, AcquireFail, Release.  The spin phase is a lock() whose
 * TryAcquireBlocking finds the lock locked: acquiring until the release,
 * then its AcquireSuccess; StopSpinning, the kernel's evidence of it,
 * changes neither variable and is checked, not a window.  A release
 * checks no owner (spin_unlock()): by a thread that holds nothing it
 * frees the lock and leaves the holder's pc locked.
 *
 * Audit domain: lockState x the acting thread's pc (6 rows) x the 5
 * actions = 30 cells; the 16 the kernel cannot produce say why, and each
 * gives an impossibility window per thread (docs/canonical.md).
 */
#include <stdio.h>
#include <string.h>
#include "../../capture/audit.h"
#include "../../capture/json.h"
#include "spin.h"

enum task_action {
	TRY_BLOCKING, TRY_NON_BLOCKING, ACQUIRE_SUCCESS, ACQUIRE_FAIL, RELEASE,
	N_TASK_ACTIONS
};

static const char *const task_actions[] = {
	"TryAcquireBlocking", "TryAcquireNonBlocking", "AcquireSuccess",
	"AcquireFail", "Release", NULL
};

enum { IDLE, ACQUIRING, LOCKED, N_PC };
static const char *const pcs[] = { "idle", "acquiring", "locked" };

#define N_ROWS (2 * N_PC)

/* Row @i: lockState locked for the second half, the actor's pc. */
static void row_label(struct strbuf *sb, int i)
{
	strbuf_addf(sb, "%s, thread %s", i >= N_PC ? "locked" : "unlocked",
		    pcs[i % N_PC]);
}

static void task_axes(struct audit_axes *ax, const cJSON *learned)
{
	struct strbuf sb = STRBUF_INIT;

	(void)learned;
	for (int i = 0; i < N_ROWS; i++) {
		row_label(&sb, i);
		audit_add_row(ax, "%s", sb.buf);
		strbuf_reset(&sb);
	}
	for (int a = 0; a < N_TASK_ACTIONS; a++)
		audit_add_col(ax, "%s", task_actions[a]);
	strbuf_release(&sb);
}

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int task_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	const char *lock = json_get_str(w->pre, "lockState");
	long long t;
	char id[24];
	int pc, a = index_of(task_actions, N_TASK_ACTIONS, w->action);

	if (a < 0 || json_get_int(w->data, "thread", &t) || !lock)
		return 0;
	snprintf(id, sizeof(id), "%lld", t);
	pc = index_of(pcs, N_PC, json_get_str(json_get(w->pre, "pc"), id));
	if (pc < 0 || (strcmp(lock, "locked") && strcmp(lock, "unlocked")))
		return 0;
	row_label(row, !strcmp(lock, "locked") * N_PC + pc);
	strbuf_addstr(col, task_actions[a]);
	return 1;
}

/*
 * Why thread-with-@pc's @a cannot happen with the lock @locked, or NULL:
 * first what the thread's own call forbids, then what the lock word does.
 */
static const char *cell_impossible(int locked, int pc, int a)
{
	int tries = a == TRY_BLOCKING || a == TRY_NON_BLOCKING;

	if (pc == ACQUIRING && (tries || a == RELEASE))
		return "the thread is inside lock() or try_lock(): it makes no "
		       "other call until that one returns";
	if (pc != ACQUIRING && (a == ACQUIRE_SUCCESS || a == ACQUIRE_FAIL))
		return "an acquire returns only from a call under way: the "
		       "thread's own TryAcquireBlocking or TryAcquireNonBlocking "
		       "comes first";
	if (locked && a == ACQUIRE_SUCCESS)
		return "the lock word is taken only when free: a lock one thread "
		       "holds is not acquired by another without a release (a "
		       "spinner's lock() returns after the release)";
	if (!locked && a == ACQUIRE_FAIL)
		return "a try fails only on a held lock: spin_trylock() on a "
		       "free lock takes it";
	return NULL;
}

/* The row and column of labels @row and @col; 0 if not the domain's. */
static int cell_of(const char *row, const char *col, int *r, int *a)
{
	struct strbuf sb = STRBUF_INIT;

	*r = -1;
	for (int i = 0; i < N_ROWS && *r < 0; i++) {
		strbuf_reset(&sb);
		row_label(&sb, i);
		if (!strcmp(sb.buf, row))
			*r = i;
	}
	strbuf_release(&sb);
	*a = index_of(task_actions, N_TASK_ACTIONS, col);
	return *r >= 0 && *a >= 0;
}

static const char *task_impossible(const char *row, const char *col)
{
	int r, a;

	return cell_of(row, col, &r, &a) ?
	       cell_impossible(r >= N_PC, r % N_PC, a) : NULL;
}

static cJSON *state(int locked, const char *pc0, const char *pc1)
{
	cJSON *st = json_obj(), *pc;

	json_add(st, "lockState", json_str(locked ? "locked" : "unlocked"));
	pc = json_add(st, "pc", json_obj());
	json_add(pc, "0", json_str(pc0));
	json_add(pc, "1", json_str(pc1));
	return st;
}

/*
 * Thread @t's @a from the row (@locked, @pc), taken as if it could be:
 * the other thread holds a locked lock unless @t does, and the action
 * does what it does where it can (the lock taken, the call ended, the
 * lock freed).
 */
static cJSON *impossible_window(int locked, int pc, int a, int t)
{
	const char *other = locked && pc != LOCKED ? "locked" : "idle";
	const char *mine = pcs[pc], *after = mine;
	int locked_after = locked;
	cJSON *w = json_obj(), *input;

	if (a == TRY_BLOCKING || a == TRY_NON_BLOCKING)
		after = "acquiring";
	else if (a == ACQUIRE_SUCCESS)
		after = "locked", locked_after = 1;
	else if (a == ACQUIRE_FAIL)
		after = "idle";
	else
		after = "idle", locked_after = 0;
	json_add(w, "action", json_str(task_actions[a]));
	input = json_add(w, "input", json_obj());
	json_add(input, "thread", json_int(t));
	if (a == ACQUIRE_SUCCESS)
		json_add(input, "callType", json_str("lock"));
	json_add(w, "pre_state", t ? state(locked, other, mine) :
				     state(locked, mine, other));
	json_add(w, "post_state", t ? state(locked_after, other, after) :
				      state(locked_after, after, other));
	return w;
}

static cJSON *task_impossible_windows(const char *row, const char *col)
{
	cJSON *all;
	int r, a;

	if (!cell_of(row, col, &r, &a) || !cell_impossible(r >= N_PC, r % N_PC, a))
		return NULL;
	all = json_arr();
	for (int t = 0; t < SPIN_TASK_THREADS; t++)
		json_add(all, NULL, impossible_window(r >= N_PC, r % N_PC, a, t));
	return all;
}

static const struct audit_domain task_audit = {
	.describes = "exhaustive: lockState x the acting thread's pc x the "
		     "kernel's event",
	.axes = task_axes,
	.classify = task_classify,
	.impossible = task_impossible,
	.impossible_windows = task_impossible_windows,
};

static void fold_task(struct fold_run *run)
{
	spin_fold(run, &folder_spin_task, SPIN_TASK);
}

const struct folder folder_spin_task = {
	.name = "spin-task",
	.summary = "spin at SysMoBench's task granularity: the kernel's events "
		   "over {lockState, pc} (docs/task-projections.md)",
	.actions = task_actions,
	.form = FORM_CANONICAL,
	.fold = fold_task,
	.audit = &task_audit,
	.actor = spin_actor,
	.refines = &folder_spin,
};
