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

extern const struct audit_domain locksvc_audit;

#define GRANT_MSG "3"

struct locksvc {
	long holder;          /* -1: free */
	char *waiting;        /* waiting[c]: client c waits */
	long nwaiting;
};

extern const struct folder folder_locksvc;

static cJSON *locksvc_state(const struct locksvc *s)
{
	cJSON *st = json_obj();
	cJSON *w;

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

static void server_step(void *ctx, struct fold_run *run,
			const struct pgo_event *e)
{
	struct locksvc *s = ctx;
	const char *to = pgo_index(e, "write", "network");
	const char *msg = pgo_value(e, "write", "network", NULL);
	long c;

	if (strcmp(e->label, "AServer.serverRespond") || !msg ||
	    strcmp(msg, GRANT_MSG))
		return;
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

static void client_step(void *ctx, struct fold_run *run,
			const struct pgo_event *e)
{
	struct locksvc *s = ctx;
	long c = pgo_id(e, e->self, "client id");

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

	free(s->waiting);
	free(s);
}

/* Clients and servers are known from the steps they take. */
static void *locksvc_begin(struct fold_run *run,
			   const struct pgo_process *procs, size_t n)
{
	struct locksvc *s = xcalloc(1, sizeof(*s));
	cJSON *st;

	(void)procs;
	(void)n;
	s->holder = -1;
	st = locksvc_state(s);
	fold_run_windows(run, &folder_locksvc, st);
	cJSON_Delete(st);
	return s;
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

static void locksvc_fold(struct fold_run *run)
{
	struct cap_err err;

	if (pgo_fold(run, &locksvc_system, &err))
		die_err(&err);
}

static const char *const locksvc_actions[] = {
	"ClientLockRequest", "ServerGrantLock", "ClientCriticalSection",
	"ClientUnlockRequest", NULL,
};

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
