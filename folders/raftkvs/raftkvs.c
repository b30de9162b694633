// SPDX-License-Identifier: MIT
/*
 * PGo's Raft key-value store (systems/raftkvs), recorded by PGo's trace
 * recorder (see pgo.h), folded into the etcd projection.
 *
 * A server srvId (1..N, N the number of AServer processes) runs as five
 * archetype instances sharing its variables: AServer (self srvId: handles
 * messages), AServerRequestVote (N + srvId: election timeouts),
 * AServerAppendEntries (2N + srvId: sends appends), AServerAdvanceCommitIndex
 * (3N + srvId: commits and answers clients), AServerBecomeLeader (4N +
 * srvId); clients are AClient 6N+1... .
 *
 * Observable state: etcd's {"nodes": {id: {role, term, vote, commit, log}}}
 * from the shared variables state[i], currentTerm[i], votedFor[i] (Nil, 0,
 * shown as vote "0" like etcd's None), commitIndex[i] and Len(log[i]).  The
 * fold replays every read and write of these in merged order: a read must
 * see, and a write's old value must be, what the last write before it left
 * (so the merge is checked against the data as well as the clocks).
 *
 * Steps, by the label they executed (old value of ".pc"):
 *   AServerRequestVote.serverRequestVoteLoop -> ElectionTimeout {node}
 *   AServer.handleMsg of a RequestVoteRequest -> HandleVoteRequest
 *     {node, from, term, logTerm, index}; of an AppendEntriesRequest ->
 *     HandleAppendEntries {node, from, term, logTerm, index, entries,
 *     commit}; of a client request -> ClientProposal {node, client} (a
 *     leader appends it, another server answers with a leader hint); of a
 *     response that raised the term -> BecomeFollower {node}
 *   AServerBecomeLeader.serverBecomeLeaderLoop -> BecomeLeader {node}
 *   AServerAdvanceCommitIndex.applyLoop raising commitIndex -> Commit
 *     {node, client}: one entry applied, its client answered
 *   AClient.sndReq -> ClientRequest {client, node, type, key, idx}
 *   AClient.rcvResp -> ClientReply {client, node, idx, success}, or
 *     ClientTimeout {client} when it gave up waiting
 * The other steps (receiving into m, loop heads, sending votes and appends,
 * computing the commit index, a client taking its next request) change
 * nothing of the projection and make no window; a step that changes it
 * without being one of the above is refused.
 *
 * Checks: at most one leader per term; a node's term and commit never
 * decrease; commit <= log; ElectionTimeout gives term+1, candidate, vote =
 * self; only the acting server's variables are written; a helper's srvId is
 * its self minus its set's offset.
 *
 * raftkvs-task (SysMoBench's raftkvs task, in etcd-task's shape): the
 * state grouped by variable, each a map server id -> value: currentTerm,
 * state (StateFollower, StateCandidate, StateLeader), votedFor ("0":
 * none), commitIndex, logLen and logLastTerm (the last entry's term, read
 * from the log the step wrote; a log whose entries carry no term is
 * refused).  A handler's input is the message as received: type
 * (RequestVoteRequest, ..., ClientPutRequest), from, to, term and what the
 * handler reads; every response handled is a window (HandleVoteResponse,
 * HandleAppendEntriesResponse), stepping down or not.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/fold.h"
#include "../../capture/readers/pgo-record.h"
#include "../../capture/readers/pgo.h"
#include "../../capture/readers/tla-value.h"
#include "../raft/raft-audit.h"

extern const struct folder folder_raftkvs, folder_raftkvs_task;

/* The shared variables the projection shows, in the slice's order. */
enum field { ROLE, TERM, VOTE, COMMIT, LOG, NFIELDS };

static const char *const variables[NFIELDS] = {
	"state", "currentTerm", "votedFor", "commitIndex", "log",
};
static const char *const roles[] = { "follower", "candidate", "leader" };

struct server {
	long f[NFIELDS];      /* ROLE: index in roles[] */
	long last_term;       /* raftkvs-task: the last entry's, 0: none */
};

struct leader {
	long term, node;
};

struct raftkvs {
	const struct folder *folder;
	int task;             /* raftkvs-task's projection */
	long n;               /* servers 1..n */
	struct server *srv;   /* srv[i - 1] */
	struct leader *leaders;
	size_t nleaders;
};

static cJSON *id_str(long id)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%ld", id);
	return json_str(buf);
}

/* raftkvs-task: the state grouped by variable, each a map id -> value. */
static cJSON *task_state(const struct raftkvs *k)
{
	static const char *const vars[] = {
		"currentTerm", "state", "votedFor", "commitIndex", "logLen",
		"logLastTerm",
	};
	static const char *const raft_roles[] = {
		"StateFollower", "StateCandidate", "StateLeader",
	};
	cJSON *st = json_obj(), *v[6];

	for (int i = 0; i < 6; i++)
		v[i] = json_add(st, vars[i], json_obj());
	for (long i = 1; i <= k->n; i++) {
		const struct server *s = &k->srv[i - 1];
		char id[24];

		snprintf(id, sizeof(id), "%ld", i);
		json_add(v[0], id, json_int(s->f[TERM]));
		json_add(v[1], id, json_str(raft_roles[s->f[ROLE]]));
		json_add(v[2], id, id_str(s->f[VOTE]));
		json_add(v[3], id, json_int(s->f[COMMIT]));
		json_add(v[4], id, json_int(s->f[LOG]));
		json_add(v[5], id, json_int(s->last_term));
	}
	return st;
}

static cJSON *raftkvs_state(const struct raftkvs *k)
{
	cJSON *st, *nodes;

	if (k->task)
		return task_state(k);
	st = json_obj();
	nodes = json_add(st, "nodes", json_obj());

	for (long i = 1; i <= k->n; i++) {
		const long *f = k->srv[i - 1].f;
		char id[24];
		cJSON *o;

		snprintf(id, sizeof(id), "%ld", i);
		o = json_add(nodes, id, json_obj());
		json_add(o, "role", json_str(roles[f[ROLE]]));
		json_add(o, "term", json_int(f[TERM]));
		json_add(o, "vote", id_str(f[VOTE]));
		json_add(o, "commit", json_int(f[COMMIT]));
		json_add(o, "log", json_int(f[LOG]));
	}
	return st;
}

static void window(struct fold_run *run, const struct raftkvs *k,
		   const char *action, cJSON *data)
{
	windows_add(run->windows, action, data, raftkvs_state(k));
}

/* {node} (and {client} when @client >= 0): most actions' data. */
static cJSON *node_data(long node, long client)
{
	cJSON *d = json_obj();

	json_add(d, "node", id_str(node));
	if (client >= 0)
		json_add(d, "client", id_str(client));
	return d;
}

/* A shared variable's value as the projection shows it; -1: not one. */
static long field_value(enum field f, const char *text)
{
	struct tla_span v = tla_span(text);

	if (f == LOG)
		return tla_seq_len(v);
	if (f != ROLE)
		return tla_nat(v);
	for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
		if (tla_str_is(v, roles[r]))
			return (long)r;
	return -1;
}

static long parse_field(const struct pgo_event *e, enum field f,
			const char *text)
{
	long v = field_value(f, text);

	if (v < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s of %s %s is %s, not a %s", variables[f],
		       e->archetype, e->self, text ? text : "missing",
		       f == LOG ? "sequence" : f == ROLE ? "role" :
		       "natural number");
	return v;
}

/* The server a shared variable's index names. */
static long server_of(const struct raftkvs *k, const struct pgo_event *e,
		      const char *index)
{
	long i = pgo_int(e, index, "server index");

	if (i < 1 || i > k->n)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s %s indexes server %ld; the run's servers are 1..%ld",
		       e->archetype, e->self, i, k->n);
	return i;
}

static enum field projected(const char *name)
{
	for (int f = 0; f < NFIELDS; f++)
		if (!strcmp(name, variables[f]))
			return (enum field)f;
	return NFIELDS;
}

/*
 * raftkvs-task: the term of the last entry of log @text, 0 for an empty
 * one; an entry without a term is refused, not given one.
 */
static long last_term(const struct pgo_event *e, const char *text)
{
	struct tla_span log = tla_span(text), entry, term;
	long n = tla_seq_len(log), t = -1;

	if (n == 0)
		return 0;
	if (tla_seq_at(log, n - 1, &entry) && tla_field(entry, "term", &term))
		t = tla_nat(term);
	if (t < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line, "raftkvs-task: the "
		       "last entry of the log %s %s writes has no term: %.60s",
		       e->archetype, e->self, text);
	return t;
}

/* Access @a of the step must agree with the last write before it. */
static void replay(struct raftkvs *k, const struct pgo_event *e, long node,
		   const struct pgo_access *a)
{
	enum field f = projected(a->name);
	int write = !strcmp(a->tag, "write");
	const char *seen = write ? a->old : a->value;
	char left[32];
	long i, *cur;

	if (f == NFIELDS || !a->index)
		return;
	i = server_of(k, e, a->index);
	cur = &k->srv[i - 1].f[f];
	if (seen && parse_field(e, f, seen) != *cur) {
		snprintf(left, sizeof(left), "%ld%s", *cur,
			 f == LOG ? " entries" : "");
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "%s %s %s %s[%ld] = %s, but the last write before it in "
		       "the merged order left %s", e->archetype, e->self,
		       write ? "overwrites" : "reads", a->name, i, seen,
		       f == ROLE ? roles[*cur] : left);
	}
	if (!write)
		return;
	if (i != node)
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "%s %s (server %ld) writes %s of server %ld",
		       e->archetype, e->self, node, a->name, i);
	*cur = parse_field(e, f, a->value);
	if (k->task && f == LOG)
		k->srv[i - 1].last_term = last_term(e, a->value);
}

static void check_leader(struct raftkvs *k, const struct pgo_event *e,
			 long node)
{
	long term = k->srv[node - 1].f[TERM];

	for (size_t i = 0; i < k->nleaders; i++) {
		if (k->leaders[i].term != term)
			continue;
		if (k->leaders[i].node != node)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "server %ld leads term %ld, which server %ld "
			       "already led", node, term, k->leaders[i].node);
		return;
	}
	k->leaders = xrealloc(k->leaders,
			      (k->nleaders + 1) * sizeof(*k->leaders));
	k->leaders[k->nleaders++] = (struct leader){ term, node };
}

/* What may never happen to a server between two steps. */
static void check_step(struct raftkvs *k, const struct pgo_event *e,
		       long node, const struct server *pre)
{
	const long *f = k->srv[node - 1].f;

	if (f[TERM] < pre->f[TERM] || f[COMMIT] < pre->f[COMMIT])
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "server %ld goes back: term %ld->%ld, commit %ld->%ld",
		       node, pre->f[TERM], f[TERM], pre->f[COMMIT], f[COMMIT]);
	if (f[COMMIT] > f[LOG])
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "server %ld commits %ld beyond its log of %ld entries",
		       node, f[COMMIT], f[LOG]);
	if (!strcmp(roles[f[ROLE]], "leader"))
		check_leader(k, e, node);
}

/* A field of message @msg, which the step read or wrote. */
static struct tla_span msg_field(const struct pgo_event *e, const char *msg,
				 const char *key)
{
	struct tla_span v;

	if (!tla_field(tla_span(msg), key, &v))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "message of %s %s has no field %s: %s", e->archetype,
		       e->self, key, msg);
	return v;
}

static long msg_nat(const struct pgo_event *e, const char *msg,
		    const char *key)
{
	long v = tla_nat(msg_field(e, msg, key));

	if (v < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "field %s of a message of %s %s is not a natural "
		       "number: %s", key, e->archetype, e->self, msg);
	return v;
}

static void add_nat(cJSON *d, const char *name, const struct pgo_event *e,
		    const char *msg, const char *key)
{
	json_add(d, name, json_int(msg_nat(e, msg, key)));
}

/* A request's data: HandleVoteRequest's or HandleAppendEntries'. */
static cJSON *request_data(const struct pgo_event *e, long node,
			   const char *m, int append)
{
	cJSON *d = node_data(node, -1);
	long entries;

	json_add(d, "from", id_str(msg_nat(e, m, "msource")));
	add_nat(d, "term", e, m, "mterm");
	if (!append) {
		add_nat(d, "logTerm", e, m, "mlastLogTerm");
		add_nat(d, "index", e, m, "mlastLogIndex");
		return d;
	}
	add_nat(d, "logTerm", e, m, "mprevLogTerm");
	add_nat(d, "index", e, m, "mprevLogIndex");
	entries = tla_seq_len(msg_field(e, m, "mentries"));
	if (entries < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "mentries of an AppendEntriesRequest is not a "
		       "sequence: %s", m);
	json_add(d, "entries", json_int(entries));
	add_nat(d, "commit", e, m, "mcommitIndex");
	return d;
}

/* raftkvs's message types: the code, the task's name, what it carries. */
static const struct msg_type {
	const char *code, *name;
	const char *fields[4][2];   /* the message's field, the input's name */
} msg_types[] = {
	{ "rvq", "RequestVoteRequest", { { "mlastLogIndex", "logIndex" },
					 { "mlastLogTerm", "logTerm" } } },
	{ "rvp", "RequestVoteResponse", { { "mvoteGranted", "voteGranted" } } },
	{ "apq", "AppendEntriesRequest", { { "mprevLogIndex", "prevLogIndex" },
					   { "mprevLogTerm", "prevLogTerm" },
					   { "mentries", "entries" },
					   { "mcommitIndex", "commitIndex" } } },
	{ "app", "AppendEntriesResponse", { { "msuccess", "success" },
					    { "mmatchIndex", "matchIndex" } } },
	{ "cpq", "ClientPutRequest", { { NULL } } },
	{ "cgq", "ClientGetRequest", { { NULL } } },
};

/* A field of message @m as JSON: a boolean, a natural, or a count. */
static cJSON *msg_json(const struct pgo_event *e, const char *m,
		       const char *key)
{
	struct tla_span v = msg_field(e, m, key);
	long n = !strcmp(key, "mentries") ? tla_seq_len(v) : tla_nat(v);
	int b = tla_bool(v);

	if (b >= 0)
		return json_bool(b);
	if (n < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line, "field %s of a message "
		       "of %s %s is neither a boolean, a natural number nor a "
		       "sequence: %s", key, e->archetype, e->self, m);
	return json_int(n);
}

/*
 * raftkvs-task's input: message @m of type @t as server @node received
 * it: type, from, to, term (a client's request has none), its fields.
 */
static cJSON *task_message(const struct pgo_event *e, long node,
			   const char *m, const struct msg_type *t)
{
	cJSON *d = json_obj();

	json_add(d, "type", json_str(t->name));
	json_add(d, "from", id_str(msg_nat(e, m, "msource")));
	json_add(d, "to", id_str(node));
	if (t->fields[0][0])
		add_nat(d, "term", e, m, "mterm");
	for (int i = 0; i < 4 && t->fields[i][0]; i++)
		json_add(d, t->fields[i][1], msg_json(e, m, t->fields[i][0]));
	return d;
}

/* raftkvs-task: handling message @m; every type its own action. */
static const char *task_handle(const struct pgo_event *e, long node,
			       const char *m, struct tla_span type,
			       cJSON **data)
{
	static const char *const actions[] = {
		"HandleVoteRequest", "HandleVoteResponse", "HandleAppendEntries",
		"HandleAppendEntriesResponse", "ClientProposal", "ClientProposal",
	};

	for (size_t i = 0; i < sizeof(msg_types) / sizeof(msg_types[0]); i++) {
		if (!tla_str_is(type, msg_types[i].code))
			continue;
		*data = task_message(e, node, m, &msg_types[i]);
		return actions[i];
	}
	die_at(EXIT_BAD_INPUT, e->file, e->line,
	       "AServer %s handles a message of unknown type: %s", e->self, m);
}

/* AServer.handleMsg: the action that handling message m is. */
static const char *handle_msg(const struct raftkvs *k,
			      const struct pgo_event *e, long node,
			      int changed, cJSON **data)
{
	const char *m = pgo_value(e, "read", "m", NULL);
	struct tla_span type;

	if (!m)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "AServer %s handles a message it did not read", e->self);
	type = msg_field(e, m, "mtype");
	if (k->task)
		return task_handle(e, node, m, type, data);
	if (tla_str_is(type, "rvq") || tla_str_is(type, "apq")) {
		int append = tla_str_is(type, "apq");

		*data = request_data(e, node, m, append);
		return append ? "HandleAppendEntries" : "HandleVoteRequest";
	}
	if (tla_str_is(type, "cpq") || tla_str_is(type, "cgq")) {
		*data = node_data(node, msg_nat(e, m, "msource"));
		return "ClientProposal";
	}
	if (!tla_str_is(type, "rvp") && !tla_str_is(type, "app"))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "AServer %s handles a message of unknown type: %s",
		       e->self, m);
	*data = changed ? node_data(node, -1) : NULL;
	return changed ? "BecomeFollower" : NULL;
}

/* The action of a server's step, and its data; NULL: no window. */
static const char *server_action(const struct raftkvs *k,
				 const struct pgo_event *e, long node,
				 int changed, cJSON **data)
{
	const char *l = e->label;
	const char *to;

	*data = NULL;
	if (!strcmp(l, "AServer.handleMsg"))
		return handle_msg(k, e, node, changed, data);
	if (!strcmp(l, "AServerRequestVote.serverRequestVoteLoop")) {
		*data = node_data(node, -1);
		return "ElectionTimeout";
	}
	if (!strcmp(l, "AServerBecomeLeader.serverBecomeLeaderLoop") &&
	    changed) {
		*data = node_data(node, -1);
		return "BecomeLeader";
	}
	if (!strcmp(l, "AServerAdvanceCommitIndex.applyLoop") && changed) {
		to = pgo_index(e, "write", "net");
		*data = node_data(node, to ? pgo_id(e, to, "reply recipient")
				       : -1);
		return "Commit";
	}
	return NULL;
}

/* The labels of server archetypes that change nothing of the projection. */
static int quiet_label(const char *label)
{
	static const char *const quiet[] = {
		"AServer.serverLoop",
		"AServerRequestVote.requestVoteLoop",
		"AServerAppendEntries.serverAppendEntriesLoop",
		"AServerAppendEntries.appendEntriesLoop",
		"AServerAdvanceCommitIndex.serverAdvanceCommitIndexLoop",
		"AServerAdvanceCommitIndex.applyLoop",
		"AServerBecomeLeader.serverBecomeLeaderLoop",
	};

	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (!strcmp(label, quiet[i]))
			return 1;
	return 0;
}

static void check_timeout(const struct pgo_event *e, long node,
			  const struct server *pre, const struct server *now)
{
	if (now->f[TERM] != pre->f[TERM] + 1 || now->f[VOTE] != node ||
	    strcmp(roles[now->f[ROLE]], "candidate"))
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "ElectionTimeout of server %ld gives term %ld, role %s, "
		       "vote %ld (expected term %ld, candidate, vote %ld)",
		       node, now->f[TERM], roles[now->f[ROLE]], now->f[VOTE],
		       pre->f[TERM] + 1, node);
}

/* The server a helper archetype of set @set (0: AServer) acts for. */
static long acting_server(const struct raftkvs *k, const struct pgo_event *e,
			  long set)
{
	long node = pgo_int(e, e->self, "self") - set * k->n;
	const char *srv = pgo_value(e, "read", "srvId", NULL);

	if (node < 1 || node > k->n)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s %s is no server's: with %ld servers its selfs are "
		       "%ld..%ld", e->archetype, e->self, k->n,
		       set * k->n + 1, (set + 1) * k->n);
	if (srv && pgo_int(e, srv, "srvId") != node)
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "%s %s reads srvId %s; with %ld servers it is server "
		       "%ld's", e->archetype, e->self, srv, k->n, node);
	return node;
}

static void server_step(struct raftkvs *k, struct fold_run *run,
			const struct pgo_event *e, long set)
{
	long node = acting_server(k, e, set);
	struct server pre = k->srv[node - 1], *now = &k->srv[node - 1];
	const char *action;
	struct pgo_access a;
	cJSON *data;
	int changed;

	for (size_t i = 0; i < e->nelements; i++) {
		pgo_access(e, i, &a);
		if (a.tag && a.name)
			replay(k, e, node, &a);
	}
	check_step(k, e, node, &pre);
	changed = memcmp(&pre, now, sizeof(pre)) != 0;
	action = server_action(k, e, node, changed, &data);
	if (!action && !quiet_label(e->label))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "unknown %s label \"%s\"", e->archetype, e->label);
	if (!action && changed)
		die_at(EXIT_CHECK_FAILED, e->file, e->line,
		       "step %s changes server %ld's state, which no action "
		       "of this label does", e->label, node);
	if (!action)
		return;
	if (!strcmp(action, "ElectionTimeout"))
		check_timeout(e, node, &pre, now);
	window(run, k, action, data);
}

/* A TLA+ string value's text (without its quotes) as JSON; NULL: none. */
static cJSON *tla_string_json(struct tla_span v)
{
	char *s;
	cJSON *j;

	v = tla_unwrap(v);
	if (v.len < 2 || v.p[0] != '"' || v.p[v.len - 1] != '"' ||
	    memchr(v.p + 1, '\\', v.len - 2))
		return NULL;
	s = xmalloc(v.len - 1);
	memcpy(s, v.p + 1, v.len - 2);
	s[v.len - 2] = '\0';
	j = json_str(s);
	free(s);
	return j;
}

/* A client's request, sent to the server it takes for the leader. */
static void client_request(struct raftkvs *k, struct fold_run *run,
			   const struct pgo_event *e, long client)
{
	const char *to = pgo_index(e, "write", "net");
	const char *msg = pgo_value(e, "write", "net", NULL);
	struct tla_span cmd, key, idx;
	cJSON *d, *key_json;

	if (!to)
		return;   /* Send's other branch: the server was suspected */
	cmd = msg_field(e, msg, "mcmd");
	if (!tla_field(cmd, "key", &key) || !tla_field(cmd, "idx", &idx) ||
	    tla_nat(idx) < 0 || !(key_json = tla_string_json(key)))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "request of AClient %s without a string key and an idx: "
		       "%s", e->self, msg);
	d = json_obj();
	json_add(d, "client", id_str(client));
	json_add(d, "node", id_str(server_of(k, e, to)));
	json_add(d, "type", json_str(tla_str_is(msg_field(e, msg, "mtype"),
						"cpq") ? "put" : "get"));
	json_add(d, "key", key_json);
	json_add(d, "idx", json_int(tla_nat(idx)));
	window(run, k, "ClientRequest", d);
}

static void client_reply(struct raftkvs *k, struct fold_run *run,
			 const struct pgo_event *e, long client)
{
	const char *msg = pgo_value(e, "read", "net", e->self);
	struct tla_span resp, idx;
	cJSON *d = json_obj();
	int ok;

	json_add(d, "client", id_str(client));
	if (!msg) {
		window(run, k, "ClientTimeout", d);
		return;
	}
	resp = msg_field(e, msg, "mresponse");
	ok = tla_bool(msg_field(e, msg, "msuccess"));
	if (ok < 0 || !tla_field(resp, "idx", &idx) || tla_nat(idx) < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "reply to AClient %s without msuccess or mresponse.idx: "
		       "%s", e->self, msg);
	json_add(d, "node", id_str(msg_nat(e, msg, "msource")));
	json_add(d, "idx", json_int(tla_nat(idx)));
	json_add(d, "success", json_bool(ok));
	window(run, k, "ClientReply", d);
}

static void client_step(void *ctx, struct fold_run *run,
			const struct pgo_event *e)
{
	struct raftkvs *k = ctx;
	long c = pgo_id(e, e->self, "client id");

	if (!strcmp(e->label, "AClient.sndReq"))
		client_request(k, run, e, c);
	else if (!strcmp(e->label, "AClient.rcvResp"))
		client_reply(k, run, e, c);
	else if (strcmp(e->label, "AClient.clientLoop"))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "unknown AClient label \"%s\"", e->label);
}

/* One step function per server archetype: @set is its place in selfs. */
#define SERVER_STEP(fn, set)						\
	static void fn(void *ctx, struct fold_run *run,		\
		       const struct pgo_event *e)			\
	{								\
		server_step(ctx, run, e, set);				\
	}
SERVER_STEP(handler_step, 0)
SERVER_STEP(request_vote_step, 1)
SERVER_STEP(append_entries_step, 2)
SERVER_STEP(advance_commit_step, 3)
SERVER_STEP(become_leader_step, 4)

/* Servers are the AServer processes, which must be 1..N. */
static long count_servers(const struct fold_run *run,
			  const struct pgo_process *procs, size_t n)
{
	long servers = 0, max = 0;

	for (size_t i = 0; i < n; i++) {
		char *end;
		long id;

		if (strcmp(procs[i].archetype, "AServer"))
			continue;
		id = strtol(procs[i].self, &end, 10);
		if (*end || id < 1 || id > PGO_MAX_ID)
			die_at(EXIT_BAD_INPUT, run->input, 0,
			       "AServer self \"%s\" is not a server id 1..%d",
			       procs[i].self, PGO_MAX_ID);
		servers++;
		if (id > max)
			max = id;
	}
	if (!servers || max != servers)
		die_at(EXIT_BAD_INPUT, run->input, 0,
		       "the run's AServer selfs are not 1..N (%ld servers, "
		       "highest id %ld)", servers, max);
	return servers;
}

static void *begin(struct fold_run *run, const struct pgo_process *procs,
		   size_t n, const struct folder *f, int task)
{
	struct raftkvs *k = xcalloc(1, sizeof(*k));
	cJSON *st;

	k->folder = f;
	k->task = task;
	k->n = count_servers(run, procs, n);
	k->srv = xcalloc(k->n, sizeof(*k->srv));
	for (long i = 0; i < k->n; i++)
		k->srv[i].f[TERM] = 1;   /* raftkvs starts in term 1 */
	st = raftkvs_state(k);
	fold_run_windows(run, f, st);
	cJSON_Delete(st);
	return k;
}

static void *raftkvs_begin(struct fold_run *run,
			   const struct pgo_process *procs, size_t n)
{
	return begin(run, procs, n, &folder_raftkvs, 0);
}

static void *task_begin(struct fold_run *run,
			const struct pgo_process *procs, size_t n)
{
	return begin(run, procs, n, &folder_raftkvs_task, 1);
}

static void raftkvs_end(void *ctx)
{
	struct raftkvs *k = ctx;

	free(k->srv);
	free(k->leaders);
	free(k);
}

#define RAFTKVS_SYSTEM(NAME, BEGIN) {					\
	.name = NAME,							\
	.begin = BEGIN,							\
	.archetypes = {							\
		{ "AServer", handler_step },				\
		{ "AServerRequestVote", request_vote_step },		\
		{ "AServerAppendEntries", append_entries_step },	\
		{ "AServerAdvanceCommitIndex", advance_commit_step },	\
		{ "AServerBecomeLeader", become_leader_step },		\
		{ "AClient", client_step },				\
	},								\
	.end = raftkvs_end,						\
}

static const struct pgo_system raftkvs_system =
	RAFTKVS_SYSTEM("raftkvs", raftkvs_begin);
static const struct pgo_system task_system =
	RAFTKVS_SYSTEM("raftkvs-task", task_begin);

static void fold_as(struct fold_run *run, const struct pgo_system *sys)
{
	struct cap_err err;

	if (pgo_fold(run, sys, &err))
		die_err(&err);
}

static void raftkvs_fold(struct fold_run *run)
{
	fold_as(run, &raftkvs_system);
}

static void task_fold(struct fold_run *run)
{
	fold_as(run, &task_system);
}

static const char *const raftkvs_actions[] = {
	"ElectionTimeout", "HandleVoteRequest", "ClientProposal",
	"HandleAppendEntries", "ClientRequest", "ClientReply", NULL,
};

/* nodes: server id -> its state, as etcd's */
static const struct itf_var raftkvs_itf[] = {
	{ "nodes", "map" },
	{ 0 }
};

static const char *const raftkvs_actor[] = { "node", "client", NULL };

/* Its other windows (server_action()), raftkvs-task's too. */
static const char *const raftkvs_auxiliary[] = {
	"BecomeLeader", "BecomeFollower", "Commit", NULL,
};

const struct folder folder_raftkvs = {
	.name = "raftkvs",
	.summary = "PGo Raft key-value store from its recorder logs, in the "
		   "etcd projection (a run = a directory of trace-*.log)",
	.actions = raftkvs_actions,
	.auxiliary = raftkvs_auxiliary,
	.form = FORM_STREAM,
	.fold = raftkvs_fold,
	.audit = &raft_audit,
	.itf = raftkvs_itf,
	.actor = raftkvs_actor,
};

static const char *const task_actions[] = {
	"ElectionTimeout", "HandleVoteRequest", "HandleVoteResponse",
	"ClientProposal", "HandleAppendEntries", "HandleAppendEntriesResponse",
	"ClientRequest", "ClientReply", NULL,
};

static const char *const task_actor[] = { "to", "node", "client", NULL };

const struct folder folder_raftkvs_task = {
	.name = "raftkvs-task",
	.summary = "raftkvs at SysMoBench's task granularity: state grouped "
		   "by variable, the message received as the input "
		   "(docs/task-projections.md)",
	.actions = task_actions,
	.form = FORM_CANONICAL,
	.fold = task_fold,
	.actor = task_actor,
	.refines = &folder_raftkvs,
};
