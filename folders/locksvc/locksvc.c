// SPDX-License-Identifier: MIT
/*
 * PGo's lock service (systems/locksvc): one AServer (self 0) and clients
 * AClient 1..N, recorded by PGo's trace recorder (see pgo.h).
 *
 * Observable state {holder, waiters}: the client holding the lock (null
 * when free) and the clients that asked for it and were not granted yet,
 * as a sorted set (the server's queue order is not visible to clients).
 * Each committed step is labelled by the label it executed (the old value
 * of its ".pc" write):
 *   AClient.acquireLock      -> ClientLockRequest {client}: joins waiters
 *   AServer.serverRespond    -> ServerGrantLock {client} when the step
 *                               wrote GrantMsg (3) to network[client]:
 *                               holder := client, leaves waiters
 *   AClient.criticalSection  -> ClientCriticalSection {client}: no change
 *   AClient.unlock           -> ClientUnlockRequest {client}: holder := null
 * AServer.serverLoop/serverReceive and a serverRespond that grants nothing
 * change nothing a client can see; they are merged but make no window.
 *
 * Checks: a critical section read GrantMsg from network[self] in the same
 * step, and the grant it consumed precedes it in the merged order (the
 * client is the holder); a grant goes to a waiter while the lock is free;
 * only the holder unlocks; no client asks twice.  No repair is applied: a
 * run that fails a check is refused.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/fold.h"
#include "../../capture/readers/pgo.h"
#include "../../capture/readers/pgo-record.h"
#include "../../capture/readers/tla-value.h"
#include "locksvc.h"
#include "locksvc-actions.h"

extern const struct audit_domain locksvc_audit;

#define GRANT_MSG "3"

struct locksvc {
	const struct folder *folder;
	long holder;          /* -1: free */
	char *waiting;        /* waiting[c]: client c waits */
	long nwaiting;
	/* locksvc-task: the recorded variables, clients 1..nclients */
	int task;
	long nclients;
	char **pc;            /* pc[c]: client c's next label, "AClient." off */
	char *has_lock;       /* has_lock[c]: its hasLock */
	cJSON *q;             /* the server's queue, as it last wrote it */
};

/* locksvc-task's state: {q, hasLock, pc}, clients by id. */
static cJSON *task_state(const struct locksvc *s)
{
	cJSON *st = json_obj(), *has, *pc;
	char id[24];

	json_add(st, "q", json_dup(s->q));
	has = json_add(st, "hasLock", json_obj());
	pc = json_add(st, "pc", json_obj());
	for (long c = 1; c <= s->nclients; c++) {
		snprintf(id, sizeof(id), "%ld", c);
		json_add(has, id, json_bool(s->has_lock[c]));
		json_add(pc, id, json_str(s->pc[c]));
	}
	return st;
}

static cJSON *locksvc_state(const struct locksvc *s)
{
	cJSON *st, *w;

	if (s->task)
		return task_state(s);
	st = json_obj();

	json_add(st, "holder", s->holder < 0 ? json_null() :
		 json_int(s->holder));
	w = json_add(st, "waiters", json_arr());
	for (long c = 0; c < s->nwaiting; c++)
		if (s->waiting[c])
			json_add(w, NULL, json_int(c));
	return st;
}

static void window(struct fold_run *run, const struct locksvc *s,
		   const char *action, long client)
{
	cJSON *data = json_obj();
	cJSON *st = locksvc_state(s);

	json_add(data, "client", json_int(client));
	windows_add(run->windows, action, data, st);
}

static int waits(const struct locksvc *s, long c)
{
	return c < s->nwaiting && s->waiting[c];
}

static void set_waiting(struct locksvc *s, long c, int on)
{
	if (c >= s->nwaiting) {
		long n = c + 1;

		s->waiting = xrealloc(s->waiting, n);
		memset(s->waiting + s->nwaiting, 0, n - s->nwaiting);
		s->nwaiting = n;
	}
	s->waiting[c] = on;
}

/*
 * locksvc-task: the queue the server wrote, its elements client ids;
 * whether it changed.
 */
static int task_queue(struct locksvc *s, const struct pgo_event *e)
{
	const char *text = pgo_value(e, "write", "q", NULL);
	struct tla_span v = tla_span(text), el;
	cJSON *q;
	long n;

	if (!text)
		return 0;
	n = tla_seq_len(v);
	if (n < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "the server's q is not a sequence: %s", text);
	q = json_arr();
	for (long i = 0; i < n && tla_seq_at(v, i, &el); i++) {
		long c = tla_nat(el);

		if (c < 1 || c > s->nclients)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "the server's q holds %.*s, not a client",
			       (int)el.len, el.p);
		json_add(q, NULL, json_int(c));
	}
	n = !cJSON_Compare(q, s->q, 1);
	cJSON_Delete(s->q);
	s->q = q;
	return n;
}

static void server_step(void *ctx, struct fold_run *run,
			const struct pgo_event *e)
{
	struct locksvc *s = ctx;
	const char *to = pgo_index(e, "write", "network");
	const char *msg = pgo_value(e, "write", "network", NULL);
	int queued = s->task && task_queue(s, e);
	long c;

	if (strcmp(e->label, "AServer.serverRespond") || !msg ||
	    strcmp(msg, GRANT_MSG)) {
		/*
		 * a respond that grants nothing changes the task's queue: a
		 * window of its own, named after its label (no target action)
		 */
		if (queued) {
			cJSON *data = json_obj();

			json_add(data, "server", json_int(e->self_num));
			windows_add(run->windows, "ServerRespond", data,
				    locksvc_state(s));
		}
		return;
	}
	c = pgo_id(e, to, "grant recipient");
	if (!waits(s, c))
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "server grants the lock to client %ld, which is not "
		       "waiting for it", c);
	if (s->holder >= 0)
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "server grants the lock to client %ld while client %ld "
		       "holds it", c, s->holder);
	s->holder = c;
	set_waiting(s, c, 0);
	window(run, s, "ServerGrantLock", c);
}

static void critical_section(struct locksvc *s, struct fold_run *run,
			     const struct pgo_event *e, long c)
{
	const char *got = pgo_value(e, "read", "network", e->self);

	if (!got)
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "critical section of client %ld did not read a grant "
		       "in its step (it read no network[%ld])", c, c);
	if (strcmp(got, GRANT_MSG))
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "critical section of client %ld did not read a grant "
		       "in its step (network[%ld] = %s, a grant is %s)", c, c,
		       got, GRANT_MSG);
	if (s->holder != c)
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "critical section of client %ld is not preceded by the "
		       "grant it consumed", c);
	window(run, s, "ClientCriticalSection", c);
}

/*
 * locksvc-task: client @c executes the label its pc names and moves to
 * the one its step writes; its hasLock is what the step writes, if any.
 */
static void task_client(struct locksvc *s, const struct pgo_event *e, long c)
{
	struct tla_span next = tla_unwrap(tla_span(pgo_value(e, "write", ".pc", NULL)));
	const char *has = pgo_value(e, "write", "hasLock", e->self);
	static const char prefix[] = "AClient.";
	size_t k = sizeof(prefix) - 1;

	if (c > s->nclients || strncmp(e->label, prefix, k) ||
	    strcmp(e->label + k, s->pc[c]))
		die_at(EXIT_CHECK_FAILED, e->file, e->line, "client %ld executes "
		       "%s, but its pc is %s", c, e->label,
		       c > s->nclients ? "unknown" : s->pc[c]);
	if (next.len < k + 2 || memcmp(next.p + 1, prefix, k))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "client %ld's step writes no AClient pc", c);
	free(s->pc[c]);
	s->pc[c] = xasprintf("%.*s", (int)(next.len - 2 - k), next.p + 1 + k);
	if (has && tla_bool(tla_span(has)) < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "client %ld's hasLock is %s, not a boolean", c, has);
	if (has)
		s->has_lock[c] = tla_bool(tla_span(has));
}

static void client_step(void *ctx, struct fold_run *run,
			const struct pgo_event *e)
{
	struct locksvc *s = ctx;
	long c = pgo_id(e, e->self, "client id");

	if (s->task)
		task_client(s, e, c);

	if (!strcmp(e->label, "AClient.acquireLock")) {
		if (waits(s, c) || s->holder == c)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "client %ld asks for the lock again", c);
		set_waiting(s, c, 1);
		window(run, s, "ClientLockRequest", c);
	} else if (!strcmp(e->label, "AClient.criticalSection")) {
		critical_section(s, run, e, c);
	} else if (!strcmp(e->label, "AClient.unlock")) {
		if (s->holder != c)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "client %ld unlocks a lock it does not hold", c);
		s->holder = -1;
		window(run, s, "ClientUnlockRequest", c);
	} else {
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "unknown AClient label \"%s\"", e->label);
	}
}

static void locksvc_end(void *ctx)
{
	struct locksvc *s = ctx;

	for (long c = 0; s->pc && c <= s->nclients; c++)
		free(s->pc[c]);
	free(s->pc);
	free(s->has_lock);
	cJSON_Delete(s->q);
	free(s->waiting);
	free(s);
}

/*
 * locksvc-task names every client from the start: the run's AClient
 * processes, which must be 1..N.  Each starts at acquireLock (the label
 * its first step executes, checked) with hasLock FALSE, the one value no
 * step writes (a client writes TRUE in its critical section, FALSE at its
 * unlock); the queue starts empty (the server writes it whole).
 */
static void task_begin(struct locksvc *s, const struct pgo_process *procs,
		       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (procs[i].archetype_len == 7 &&
		    !memcmp(procs[i].archetype, "AClient", 7))
			s->nclients++;
	s->pc = xcalloc(s->nclients + 1, sizeof(*s->pc));
	s->has_lock = xcalloc(s->nclients + 1, 1);
	for (long c = 1; c <= s->nclients; c++)
		s->pc[c] = xstrdup("acquireLock");
	s->q = json_arr();
}

static void *begin(struct fold_run *run, const struct pgo_process *procs,
		   size_t n, const struct folder *f, int task)
{
	struct locksvc *s = xcalloc(1, sizeof(*s));
	cJSON *st;

	s->folder = f;
	s->task = task;
	s->holder = -1;
	if (task)
		task_begin(s, procs, n);
	st = locksvc_state(s);
	fold_run_windows(run, f, st);
	cJSON_Delete(st);
	return s;
}

/* Clients and servers are known from the steps they take. */
static void *locksvc_begin(struct fold_run *run,
			   const struct pgo_process *procs, size_t n)
{
	return begin(run, procs, n, &folder_locksvc, 0);
}

static void *task_begin_run(struct fold_run *run,
			    const struct pgo_process *procs, size_t n)
{
	return begin(run, procs, n, &folder_locksvc_task, 1);
}

static const struct pgo_system locksvc_system = {
	.name = "locksvc",
	.begin = locksvc_begin,
	.archetypes = {
		{ "AServer", server_step },
		{ "AClient", client_step },
	},
	.end = locksvc_end,
};

static const struct pgo_system task_system = {
	.name = "locksvc-task",
	.begin = task_begin_run,
	.archetypes = {
		{ "AServer", server_step },
		{ "AClient", client_step },
	},
	.end = locksvc_end,
};

static void fold_as(struct fold_run *run, const struct pgo_system *sys)
{
	struct cap_err err;

	if (pgo_fold(run, sys, &err))
		die_err(&err);
}

static void locksvc_fold(struct fold_run *run)
{
	fold_as(run, &locksvc_system);
}

static void task_fold(struct fold_run *run)
{
	fold_as(run, &task_system);
}

/* holder is null while no client holds the lock */
static const struct itf_var locksvc_itf[] = {
	{ "holder", "option" },
	{ "waiters", "set" },
	{ 0 }
};

static const char *const locksvc_actor[] = { "client", NULL };

const struct folder folder_locksvc = {
	.name = "locksvc",
	.summary = "PGo lock service from its recorder logs (a run = a "
		   "directory of trace-*.log)",
	.actions = locksvc_actions,
	.form = FORM_STREAM,
	.fold = locksvc_fold,
	.audit = &locksvc_audit,
	.itf = locksvc_itf,
	.actor = locksvc_actor,
};

const struct folder folder_locksvc_task = {
	.name = "locksvc-task",
	.summary = "locksvc at SysMoBench's task granularity: the recorded "
		   "{q, hasLock, pc} (docs/task-projections.md)",
	.actions = locksvc_actions,
	.form = FORM_CANONICAL,
	.fold = task_fold,
	.actor = locksvc_actor,
	.refines = &folder_locksvc,
};
