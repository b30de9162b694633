// SPDX-License-Identifier: MIT
/*
 * rwlock's audit domain, exhaustive: 6 pre-states (free; readers {0},
 * {1}, {0,1}; writer 0, writer 1: a writer excludes readers) x 12 actions
 * with their data (ReadLock, ReadTryLock, ReadUnlock, WriteLock,
 * WriteTryLock, WriteUnlock by thread 0|1) = 72 cells, 40 of them
 * declared impossible:
 *
 *  - a lock() window on a lock held against it: read_lock and write_lock
 *    return only once they took the lock, so the window of one that
 *    waited is drawn from the state after the holder's unlock (a lock()
 *    by a holder never returns: a call observed never completing);
 *  - a second read lock of a reader: the kernel counts it, but readers is
 *    a set, so the module and the folder refuse it;
 *  - an unlock by a thread that does not hold that lock: the queued rwlock
 *    keeps no owner and would corrupt its count or clear another's write
 *    lock; the module and the folder refuse it.
 *
 * Every trylock cell is reachable: a failed one is a window whose post is
 * its pre.
 *
 * The cells impossible by the lock itself (a lock() taken against a
 * holder, a lock() by a holder that would deadlock) draw impossibility
 * windows (capture/impossible.h): the lock taken without waiting.  Those
 * the module and the folder refuse (a second read lock, an unlock by a
 * thread not holding) are choices of ours, which the kernel would let
 * happen: they draw none.
 */
#include <stdio.h>
#include <string.h>
#include "../../capture/audit.h"
#include "../../capture/json.h"
#include "rwlock-ops.h"

#define THREADS 2
#define NO_ONE (-1)

/* The rows, in order; a state's row is found by its label. */
static const char *const rows[] = {
	"free", "readers {0}", "readers {1}", "readers {0,1}",
	"writer 0", "writer 1",
};

static void rwlock_axes(struct audit_axes *ax, const cJSON *learned)
{
	(void)learned;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		audit_add_row(ax, "%s", rows[r]);
	for (const char *const *a = rwlock_actions; *a; a++)
		for (int t = 0; t < THREADS; t++)
			audit_add_col(ax, "%s(%d)", *a, t);
}

/* "readers {0,1}" from the readers array; 0 if it is not a set of threads. */
static int readers_row(const cJSON *readers, struct strbuf *row)
{
	const cJSON *r;
	long long prev = -1;
	int n = 0;

	strbuf_addstr(row, "readers {");
	cJSON_ArrayForEach(r, readers) {
		if (!cJSON_IsNumber(r) || r->valuedouble <= prev ||
		    r->valuedouble >= THREADS)
			return 0;
		prev = (long long)r->valuedouble;
		strbuf_addf(row, "%s%lld", n++ ? "," : "", prev);
	}
	strbuf_addstr(row, "}");
	return 1;
}

static int rwlock_classify(const struct window *w, struct strbuf *row,
			   struct strbuf *col)
{
	const cJSON *readers = json_get(w->pre, "readers");
	const cJSON *writer = json_get(w->pre, "writer");
	const char *const *a = rwlock_actions;
	long long thread, wt;

	if (json_get_int(w->data, "thread", &thread) || !cJSON_IsArray(readers))
		return 0;
	while (*a && strcmp(w->action, *a))
		a++;
	if (!*a)
		return 0;
	if (!cJSON_IsNull(writer)) {
		if (json_get_int(w->pre, "writer", &wt) || cJSON_GetArraySize(readers))
			return 0;
		strbuf_addf(row, "writer %lld", wt);
	} else if (!cJSON_GetArraySize(readers)) {
		strbuf_addstr(row, "free");
	} else if (!readers_row(readers, row)) {
		return 0;
	}
	strbuf_addf(col, "%s(%lld)", *a, thread);
	return 1;
}

/* Does the row's state have @t reading; who writes (NO_ONE: none)? */
static int row_reads(const char *row, int t)
{
	char digit[2] = { (char)('0' + t), 0 };

	return !strncmp(row, "readers {", 9) && strstr(row + 9, digit);
}

static int row_writer(const char *row)
{
	int w;

	return sscanf(row, "writer %d", &w) == 1 ? w : NO_ONE;
}

static const char *const not_reader =
	"read_unlock by a thread not reading: the queued rwlock keeps no owner, "
	"it would take another's count or underflow it (the module and the "
	"folder refuse it)";
static const char *const not_writer =
	"write_unlock by a thread not writing: the queued rwlock keeps no owner, "
	"it would clear whatever write lock there is (the module and the folder "
	"refuse it)";
static const char *const recursive =
	"a second read lock of a reader: the kernel counts it, readers is a set "
	"(the module and the folder refuse it)";

static const char *lock_impossible(const char *row, const char *action, int t)
{
	int writer = row_writer(row);
	int write = !strcmp(action, "WriteLock");

	if (row_reads(row, t))
		return write ? "write_lock by a reader never returns" : recursive;
	if (writer == t)
		return write ? "write_lock by the writer never returns"
			     : "read_lock by the writer never returns";
	if (writer != NO_ONE || (write && strcmp(row, "free")))
		return "a lock() returns only once it took the lock: the window "
		       "of one that waited is drawn after the holder's unlock";
	return NULL;
}

static const char *rwlock_impossible(const char *row, const char *col)
{
	char action[16];
	int t;

	if (sscanf(col, "%15[A-Za-z](%d)", action, &t) != 2)
		return NULL;
	if (!strcmp(action, "ReadLock") || !strcmp(action, "WriteLock"))
		return lock_impossible(row, action, t);
	if (!strcmp(action, "ReadTryLock"))
		return row_reads(row, t) ? recursive : NULL;
	if (!strcmp(action, "ReadUnlock"))
		return row_reads(row, t) ? NULL : not_reader;
	if (!strcmp(action, "WriteUnlock"))
		return row_writer(row) == t ? NULL : not_writer;
	return NULL;
}

/* The state of @row: readers a sorted set, writer a thread or null. */
static cJSON *row_state(const char *row, int extra_reader, int writer)
{
	cJSON *st = json_obj(), *readers = json_add(st, "readers", json_arr());

	for (int t = 0; t < THREADS; t++)
		if (row_reads(row, t) || t == extra_reader)
			json_add(readers, NULL, json_int(t));
	if (writer == NO_ONE)
		writer = row_writer(row);
	json_add(st, "writer", writer == NO_ONE ? json_null() : json_int(writer));
	return st;
}

/*
 * Cell (@row, @col) as a window if the lock itself forbids it: the
 * lock() completes at once, its thread added as a reader or the writer.
 */
static cJSON *rwlock_impossible_windows(const char *row, const char *col)
{
	const char *why = rwlock_impossible(row, col);
	char action[16];
	cJSON *all, *w, *input;
	int t, write;

	if (!why || why == recursive || why == not_reader || why == not_writer ||
	    sscanf(col, "%15[A-Za-z](%d)", action, &t) != 2)
		return NULL;
	write = !strcmp(action, "WriteLock");
	all = json_arr();
	w = json_add(all, NULL, json_obj());
	json_add(w, "action", json_str(action));
	input = json_add(w, "input", json_obj());
	json_add(input, "thread", json_int(t));
	json_add(w, "pre_state", row_state(row, NO_ONE, NO_ONE));
	json_add(w, "post_state", row_state(row, write ? NO_ONE : t,
					    write ? t : NO_ONE));
	return all;
}

const struct audit_domain rwlock_audit = {
	.describes = "exhaustive: pre-state {readers, writer} x action with its "
		     "thread",
	.axes = rwlock_axes,
	.classify = rwlock_classify,
	.impossible = rwlock_impossible,
	.impossible_windows = rwlock_impossible_windows,
};
