// SPDX-License-Identifier: MIT
/*
 * zookeeper's audit domain (docs/zookeeper.md, "Audit"), for ensembles
 * of three servers: a row is the acting server's state before the step
 * (absent: not yet started), a column its action, and for a notification
 * handled its class: the sender's state; its round against the handler's
 * logical clock (newer, same, older); its vote against the handler's
 * (higher, same, lower by FastLeaderElection's order: epoch, then zxid,
 * then id); whether the handler's votes of the election then hold a
 * majority for its vote (quorum).  4 rows x 63 columns = 252 cells.
 *
 * Impossible (lookForLeader's and the fold's own structure):
 *  - whatever a server does, absent: it is in the state from its start on
 *    (a notification is sent by an election, which follows the start);
 *  - ServerStart of a server present (a new process of one is a restart),
 *    ServerRestart of one never seen;
 *  - HandleNotification, NotificationTimeout, BecomeLeader, BecomeFollower
 *    from FOLLOWING or LEADING: lookForLeader runs while its server is
 *    LOOKING, and these are its steps;
 *  - a LOOKING notification of a newer round reaching a quorum: the newer
 *    round clears the election's votes, which then hold one.
 */
#include <stdio.h>
#include <string.h>
#include "../../capture/audit.h"
#include "../../capture/json.h"
#include "zookeeper-audit.h"
#include "zookeeper-states.h"

#define SERVERS 3

static const char *const rows[] = { "absent", "LOOKING", "FOLLOWING", "LEADING" };
static const char *const plain[] = {
	"ServerStart", "ServerRestart", "StartElection", "NotificationTimeout",
	"BecomeLeader", "BecomeFollower",
};
static const char *const rounds[] = { "newer round", "same round", "older round" };
static const char *const votes[] = { "higher vote", "same vote", "lower vote" };
static const char *const quorums[] = { "quorum", "no quorum" };

static void zk_axes(struct audit_axes *ax, const cJSON *learned)
{
	(void)learned;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		audit_add_row(ax, "%s", rows[r]);
	for (size_t c = 0; c < sizeof(plain) / sizeof(plain[0]); c++)
		audit_add_col(ax, "%s", plain[c]);
	for (int s = 0; s < 3; s++)
		audit_add_col(ax, "Notification(%s)", zk_states[s]);
	for (int s = 0; s < 3; s++)
		for (int r = 0; r < 3; r++)
			for (int v = 0; v < 3; v++)
				for (int q = 0; q < 2; q++)
					audit_add_col(ax, "HandleNotification(%s, %s, %s, %s)",
						      zk_states[s], rounds[r], votes[v], quorums[q]);
}

static long long at(const cJSON *o, const char *key)
{
	long long v = 0;

	json_get_int(o, key, &v);
	return v;
}

/* -1, 0, 1: vote @a against @b by epoch, zxid, then id. */
static int order(const cJSON *a, const cJSON *b)
{
	static const char *const keys[] = { "proposedEpoch", "proposedZxid", "proposedLeader" };

	for (int i = 0; i < 3; i++) {
		long long x = at(a, keys[i]), y = at(b, keys[i]);

		if (x != y)
			return x > y ? 1 : -1;
	}
	return 0;
}

static int same_vote(const cJSON *a, const cJSON *b)
{
	return !order(a, b);
}

/* The election's votes in @st of server @id: a majority of three for its vote? */
static int quorum(const cJSON *st, const char *id)
{
	const cJSON *mine = json_get(json_get(st, "currentVote"), id), *e;
	long long clock = at(json_get(st, "logicalClock"), id);
	int n = 0;

	cJSON_ArrayForEach(e, json_get(json_get(st, "receiveVotes"), id))
		n += same_vote(json_get(e, "vote"), mine) && at(e, "round") == clock;
	return 2 * n > SERVERS;
}

static int zk_classify(const struct window *w, struct strbuf *row, struct strbuf *col)
{
	const cJSON *data = w->data, *states = json_get(w->pre, "state"), *who;
	const char *state;
	char id[24];
	int r, v;

	if (cJSON_GetArraySize(json_get(w->post, "state")) > SERVERS)
		return 0;
	who = json_get(data, "server") ? json_get(data, "server") : json_get(data, "from");
	snprintf(id, sizeof(id), "%lld", (long long)(who ? who->valuedouble : 0));
	state = json_get_str(states, id);
	strbuf_addstr(row, state ? state : "absent");
	if (!strcmp(w->action, "Notification")) {
		strbuf_addf(col, "Notification(%s)", json_get_str(data, "state"));
		return 1;
	}
	if (strcmp(w->action, "HandleNotification")) {
		strbuf_addstr(col, w->action);
		return 1;
	}
	r = at(data, "round") > at(json_get(w->pre, "logicalClock"), id) ? 0 :
	    at(data, "round") == at(json_get(w->pre, "logicalClock"), id) ? 1 : 2;
	v = order(json_get(data, "vote"), json_get(json_get(w->pre, "currentVote"), id));
	strbuf_addf(col, "HandleNotification(%s, %s, %s, %s)", json_get_str(data, "state"),
		    rounds[r], votes[v > 0 ? 0 : v == 0 ? 1 : 2],
		    quorums[quorum(w->post, id) ? 0 : 1]);
	return 1;
}

static const char *zk_impossible(const char *row, const char *col)
{
	int steps = !strncmp(col, "HandleNotification", 18) ||
		    !strcmp(col, "NotificationTimeout") || !strncmp(col, "Become", 6);

	if (!strcmp(row, "absent") && strcmp(col, "ServerStart"))
		return "a server is in the state from its start on: its election, and every "
		       "notification it sends, come after";
	if (strcmp(row, "absent") && !strcmp(col, "ServerStart"))
		return "a server seen before starts again as a ServerRestart";
	if (steps && (!strcmp(row, "FOLLOWING") || !strcmp(row, "LEADING")))
		return "lookForLeader runs while its server is LOOKING: its steps start from LOOKING";
	if (!strcmp(col, "HandleNotification(LOOKING, newer round, higher vote, quorum)") ||
	    !strcmp(col, "HandleNotification(LOOKING, newer round, same vote, quorum)") ||
	    !strcmp(col, "HandleNotification(LOOKING, newer round, lower vote, quorum)"))
		return "a LOOKING notification of a newer round clears the election's votes: "
		       "they hold one, no majority of three";
	return NULL;
}

const struct audit_domain zk_audit = {
	.describes = "the acting server's state before the step x its action, a handled "
		     "notification by the sender's state, its round and vote against the "
		     "handler's, and whether the handler's votes then hold a majority "
		     "(ensembles of three servers)",
	.axes = zk_axes,
	.classify = zk_classify,
	.impossible = zk_impossible,
};
