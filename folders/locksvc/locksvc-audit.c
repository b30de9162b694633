// SPDX-License-Identifier: MIT
/*
 * locksvc's audit domain: finite given the clients, which are learned from
 * the windows (every client id in data, holder and waiters).  The state
 * {holder, waiters} is classified relative to the client the action is
 * about (data.client; for ServerGrantLock the grantee): holder free, that
 * client or another, x that client waiting or not, x others waiting or
 * not = 12 pre-state classes; columns are each action for each client.
 * The concrete domain ((N+1) holders x 2^N waiter sets) grows
 * exponentially and says little more about what a spec must handle.
 *
 * Impossible cells follow from PGo's locksvc (AClient: acquireLock, then
 * criticalSection on the grant, then unlock; AServer grants only a waiter,
 * only when no one holds the lock), which the folder checks on every step:
 * a client is never holder and waiter at once (a grant takes it out of
 * the waiters, and it asks again only after its unlock); it asks only
 * when neither waiting nor holding; only the holder enters its critical
 * section or unlocks; a grant goes to a waiter of a free lock.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/audit.h"
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "locksvc-actions.h"

static const char *const holders[] = { "free", "held by self", "held by other" };
static const char *const waiting[] = {
	"", ", others wait", ", self waits", ", self and others wait",
};

/*
 * Every window names its clients again: look them up by value first.  A
 * client is an integer (a window whose data.client is not one lies
 * outside the domain); any other number is no client.
 */
static void note_client(cJSON *clients, const cJSON *v)
{
	const cJSON *c;
	long long id;
	char key[32];

	if (json_int_value(v, &id))
		return;
	cJSON_ArrayForEach(c, clients)
		if ((long long)c->valuedouble == id)
			return;
	snprintf(key, sizeof(key), "%lld", id);
	json_add(clients, key, json_int(id));
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void note_clients(cJSON *clients, const struct window *w)
{
	const cJSON *c;

	note_client(clients, json_get(w->data, "client"));
	note_client(clients, json_get(w->pre, "holder"));
	cJSON_ArrayForEach(c, json_get(w->pre, "waiters"))
		note_client(clients, c);
}

static void locksvc_axes(struct audit_axes *ax, const cJSON *clients)
{
	const cJSON *c;
	long long *ids;
	size_t n = 0;

	ids = xcalloc(cJSON_GetArraySize(clients) + 1, sizeof(*ids));
	cJSON_ArrayForEach(c, clients)
		ids[n++] = (long long)c->valuedouble;
	qsort(ids, n, sizeof(*ids), by_value);
	for (int h = 0; h < 3; h++)
		for (int w = 0; w < 4; w++)
			audit_add_row(ax, "%s%s", holders[h], waiting[w]);
	for (int a = 0; locksvc_actions[a]; a++)
		for (size_t i = 0; i < n; i++)
			audit_add_col(ax, "%s(%lld)", locksvc_actions[a], ids[i]);
	free(ids);
}

static int locksvc_classify(const struct window *w, struct strbuf *row,
			    struct strbuf *col)
{
	const cJSON *holder = json_get(w->pre, "holder"), *c;
	long long client;
	int h, self = 0, others = 0;

	if (json_get_int(w->data, "client", &client) ||
	    !cJSON_IsArray(json_get(w->pre, "waiters")))
		return 0;
	if (cJSON_IsNull(holder))
		h = 0;
	else if (cJSON_IsNumber(holder))
		h = holder->valuedouble == client ? 1 : 2;
	else
		return 0;
	cJSON_ArrayForEach(c, json_get(w->pre, "waiters")) {
		if (cJSON_IsNumber(c) && c->valuedouble == client)
			self = 1;
		else
			others = 1;
	}
	strbuf_addstr(row, holders[h]);
	strbuf_addstr(row, waiting[self * 2 + others]);
	/* a label per window: printf would be most of the audit's cost */
	strbuf_addstr(col, w->action);
	strbuf_add(col, "(", 1);
	strbuf_add_int(col, client);
	strbuf_add(col, ")", 1);
	return 1;
}

/* The rows an action can be taken in, with the reason for the others. */
static const struct {
	const char *action;
	const char *rows[5];   /* NULL-terminated */
	const char *why;
} possible[] = {
	{ "ClientLockRequest",
	  { "free", "free, others wait", "held by other",
	    "held by other, others wait", NULL },
	  "a client asks only when it neither waits nor holds the lock" },
	{ "ServerGrantLock",
	  { "free, self waits", "free, self and others wait", NULL },
	  "the server grants only a waiting client, only a free lock" },
	{ "ClientCriticalSection",
	  { "held by self", "held by self, others wait", NULL },
	  "only the holder enters its critical section, and it is no waiter" },
	{ "ClientUnlockRequest",
	  { "held by self", "held by self, others wait", NULL },
	  "only the holder unlocks, and it is no waiter" },
};

static int row_in(const char *const *rows, const char *row)
{
	for (; *rows; rows++)
		if (!strcmp(*rows, row))
			return 1;
	return 0;
}

static const char *locksvc_impossible(const char *row, const char *col)
{
	size_t n = strcspn(col, "(");

	for (size_t i = 0; i < sizeof(possible) / sizeof(possible[0]); i++) {
		if (strlen(possible[i].action) != n ||
		    strncmp(possible[i].action, col, n))
			continue;
		return row_in(possible[i].rows, row) ? NULL : possible[i].why;
	}
	return NULL;
}

const struct audit_domain locksvc_audit = {
	.describes = "finite given the clients seen: pre-state relative to "
		     "the client acted for (holder, it waits, others wait) x "
		     "action x client",
	.learn = note_clients,
	.axes = locksvc_axes,
	.classify = locksvc_classify,
	.impossible = locksvc_impossible,
};
