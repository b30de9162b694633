// SPDX-License-Identifier: MIT
/*
 * zookeeper: ZooKeeper's Fast Leader Election, as SysMoBench's zookeeper
 * task names it (docs/zookeeper.md, "The projection").
 *
 * Input: the events of scenarios/zookeeper/fle.probes (capture
 * zookeeper's raw/RUN.ndjson), one a line, in the order the servers
 * wrote them: Begin, Dequeue, Decide and Leave on a server's election
 * thread (lookForLeader's entry, its main loop's poll, setPeerState,
 * leaveInstance), Send and Receive (a notification leaving a server, one
 * received), Epoch (a server taking an epoch).
 *
 * State, by variable, each a map server id -> value, a server from its
 * first election on: state (LOOKING, FOLLOWING, LEADING), logicalClock,
 * currentVote {proposedLeader, proposedZxid, proposedEpoch},
 * receiveVotes and outOfElection (sender id -> {vote, round, state}: the
 * votes of this election, and those of FOLLOWING or LEADING peers),
 * currentEpoch and lastZxid (what the server's own vote is made of).
 *
 * A window is a step of a server's election thread, from one of its
 * observation points to the next: ServerStart or ServerRestart (a new
 * process, to its election's start), StartElection (to its first poll),
 * HandleNotification (a notification taken, to the next poll or the
 * decision), NotificationTimeout (a poll that timed out), BecomeLeader or
 * BecomeFollower (the decision, to leaveInstance); and Notification, a
 * notification sent, which changes no server's state.  The received-vote
 * maps are not read whole: they follow from the notifications handled,
 * by FastLeaderElection's rules, and their sizes are checked against
 * the server's own at every poll.
 *
 * Checks (exit 4, the line): a logical clock never goes back within a
 * process; every notification received was sent before by its sender to
 * its receiver, unchanged (once, or again on a new connection); at most one
 * leader takes an epoch, and a follower takes it following that leader;
 * a decision's leader is the vote, a leader leads itself; the received
 * votes as the server counts them; the election's points in order.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/fold.h"
#include "../../capture/json.h"
#include "../../capture/ndjson.h"
#include "zookeeper.h"
#include "zookeeper-audit.h"
#include "zookeeper-states.h"

#define MAX_SERVERS 16

enum step { NONE, START, HANDLE, TIMEOUT, BECOME };

struct vote {
	long long leader, zxid, epoch;
};

/* A vote received: receiveVotes' or outOfElection's entry of a sender. */
struct got {
	int present;
	struct vote v;
	long long round;
	int state;
};

/* A notification, as sent or received. */
struct note {
	long long from, to, round;
	int state;
	struct vote v;
};

struct server {
	int present, proc, begun, deciding;
	long long voters;       /* of its configuration */
	int state;
	long long clock, epoch, zxid;
	struct vote vote;
	struct got recv[MAX_SERVERS + 1], ooe[MAX_SERVERS + 1];
	enum step pending;      /* the step under way since the last point */
	struct note n;          /* the notification being handled */
};

struct sent {
	struct note n;
	int received;
};

struct zk_fold {
	struct fold_run *run;
	struct line_reader in;
	struct server s[MAX_SERVERS + 1];
	long long *clock;       /* per process: the last logical clock it showed */
	int nprocs;
	struct sent *sent;
	size_t nsent, received, again, first_open;
	long long leader_of[64];    /* epoch -> its leader's id, epochs < 64 */
	long long incomplete;
};

static __attribute__((format(printf, 2, 3), noreturn))
void violation(const struct zk_fold *f, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die_at(EXIT_CHECK_FAILED, f->in.path, f->in.line, "%s", msg);
}

static __attribute__((noreturn)) void bad(const struct zk_fold *f, const char *what)
{
	die_at(EXIT_BAD_INPUT, f->in.path, f->in.line, "%s", what);
}

static long long num(const struct zk_fold *f, const cJSON *obj, const char *key)
{
	long long v;

	if (json_get_int(obj, key, &v)) {
		char why[128];

		snprintf(why, sizeof(why), "expected an integer \"%s\"", key);
		bad(f, why);
	}
	return v;
}

static int state_of(const struct zk_fold *f, const cJSON *obj, const char *key)
{
	const char *w = json_get_str(obj, key);

	for (int i = 0; w && i < N_STATES; i++)
		if (!strcmp(w, zk_states[i]))
			return i;
	bad(f, "expected a server state (LOOKING, FOLLOWING, LEADING, OBSERVING)");
}

static struct server *server(struct zk_fold *f, long long id)
{
	if (id < 1 || id > MAX_SERVERS)
		bad(f, "a server id from 1 to 16");
	return &f->s[id];
}

static struct vote vote_of(const struct zk_fold *f, const cJSON *obj)
{
	return (struct vote){ num(f, obj, "leader"), num(f, obj, "zxid"), num(f, obj, "epoch") };
}

static int same_vote(struct vote a, struct vote b)
{
	return a.leader == b.leader && a.zxid == b.zxid && a.epoch == b.epoch;
}

static struct note note_of(const struct zk_fold *f, const cJSON *obj)
{
	return (struct note){ num(f, obj, "from"), num(f, obj, "to"), num(f, obj, "round"),
			      state_of(f, obj, "state"), vote_of(f, obj) };
}

/* The logical clock of process @proc never goes back. */
static void clock_seen(struct zk_fold *f, int proc, long long clock)
{
	if (proc >= f->nprocs) {
		f->clock = xrealloc(f->clock, (size_t)(proc + 1) * sizeof(*f->clock));
		while (f->nprocs <= proc)
			f->clock[f->nprocs++] = -1;
	}
	if (clock < f->clock[proc])
		violation(f, "the logical clock of process %d goes back, %lld to %lld",
			  proc, f->clock[proc], clock);
	f->clock[proc] = clock;
}

static cJSON *vote_json(struct vote v)
{
	cJSON *o = json_obj();

	json_add(o, "proposedLeader", json_int(v.leader));
	json_add(o, "proposedZxid", json_int(v.zxid));
	json_add(o, "proposedEpoch", json_int(v.epoch));
	return o;
}

static cJSON *votes_json(const struct got *g)
{
	cJSON *o = json_obj();
	char id[8];

	for (int j = 1; j <= MAX_SERVERS; j++) {
		cJSON *e;

		if (!g[j].present)
			continue;
		snprintf(id, sizeof(id), "%d", j);
		e = json_add(o, id, json_obj());
		json_add(e, "vote", vote_json(g[j].v));
		json_add(e, "round", json_int(g[j].round));
		json_add(e, "state", json_str(zk_states[g[j].state]));
	}
	return o;
}

/* The state: each variable a map of the servers present, by id. */
static cJSON *state_json(const struct zk_fold *f)
{
	static const char *const vars[] = { "state", "logicalClock", "currentVote",
					    "receiveVotes", "outOfElection", "currentEpoch",
					    "lastZxid" };
	cJSON *st = json_obj();

	for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++) {
		cJSON *m = json_add(st, vars[k], json_obj());

		for (int i = 1; i <= MAX_SERVERS; i++) {
			const struct server *s = &f->s[i];
			char id[8];
			cJSON *v;

			if (!s->present)
				continue;
			snprintf(id, sizeof(id), "%d", i);
			v = k == 0 ? json_str(zk_states[s->state]) : k == 1 ? json_int(s->clock) :
			    k == 2 ? vote_json(s->vote) : k == 3 ? votes_json(s->recv) :
			    k == 4 ? votes_json(s->ooe) : k == 5 ? json_int(s->epoch) :
			    json_int(s->zxid);
			json_add(m, id, v);
		}
	}
	return st;
}

static void window(struct zk_fold *f, const char *action, cJSON *data)
{
	windows_add(f->run->windows, action, data, state_json(f));
}

static cJSON *server_data(long long id)
{
	cJSON *d = json_obj();

	json_add(d, "server", json_int(id));
	return d;
}

static cJSON *note_data(cJSON *d, const struct note *n)
{
	json_add(d, "state", json_str(zk_states[n->state]));
	json_add(d, "round", json_int(n->round));
	json_add(d, "vote", vote_json(n->v));
	return d;
}

/* What a server's own vote is made of: data of a start or a new election. */
static cJSON *own_data(long long id, const struct server *s)
{
	cJSON *d = server_data(id);

	json_add(d, "currentEpoch", json_int(s->epoch));
	json_add(d, "lastZxid", json_int(s->zxid));
	return d;
}

static void clear(struct got *g)
{
	memset(g, 0, sizeof(struct got) * (MAX_SERVERS + 1));
}

static void put(struct got *g, const struct note *n, int state)
{
	g[n->from] = (struct got){ 1, n->v, n->round, state };
}

/*
 * The received votes after notification @n, as lookForLeader keeps them:
 * a LOOKING one of a newer round clears them, then it is put, unless its
 * round is older (or a zxid is -1); a FOLLOWING or LEADING one is put in
 * this election's if of its round, and in outOfElection always.
 */
static void handled(struct server *s, const struct note *n, long long clock)
{
	if (n->state == LOOKING) {
		if (s->zxid == -1 || n->v.zxid == -1 || n->round < clock)
			return;
		if (n->round > clock)
			clear(s->recv);
		put(s->recv, n, LOOKING);
	} else if (n->state == FOLLOWING || n->state == LEADING) {
		if (n->round == clock)
			put(s->recv, n, n->state);
		put(s->ooe, n, n->state);
	}
}

static int count(const struct got *g)
{
	int k = 0;

	for (int j = 1; j <= MAX_SERVERS; j++)
		k += g[j].present;
	return k;
}

/* Vote.equals: a LOOKING vote on either side compares all of it, else the
 * leader and its epoch alone (ZOOKEEPER-1732). */
static int same_got(const struct got *a, const struct got *b)
{
	int whole = a->state == LOOKING || b->state == LOOKING;

	return a->v.leader == b->v.leader && a->v.epoch == b->v.epoch &&
	       (!whole || (a->v.zxid == b->v.zxid && a->round == b->round));
}

/* getVoteTracker's hasAllQuorums over @g for @v: a majority of the voters. */
static int quorum(const struct got *g, const struct got *v, long long voters)
{
	int n = 0;

	for (int j = 1; j <= MAX_SERVERS; j++)
		n += g[j].present && same_got(&g[j], v);
	return 2 * n > voters;
}

/* checkLeader: the leader voted for said it leads, or is @me in its round. */
static int check_leader(const struct got *g, long long leader, long long round,
			long long me, long long clock)
{
	if (leader != me)
		return leader >= 1 && leader <= MAX_SERVERS && g[leader].present &&
		       g[leader].state == LEADING;
	return clock == round;
}

/*
 * A FOLLOWING or LEADING notification decided (receivedFollowingNotification):
 * by this round's votes, which leave outOfElection as it was and the clock,
 * or by those outside it, which set the clock to the notification's round.
 */
static void decided_by(struct zk_fold *f, long long id, struct server *s, long long before)
{
	const struct note *n = &s->n;
	struct got v = { 1, n->v, n->round, n->state };
	int in_round = 0;

	if (n->round == before) {
		put(s->recv, n, n->state);
		in_round = quorum(s->recv, &v, s->voters) &&
			   check_leader(s->recv, n->v.leader, n->round, id, before);
	}
	if (!in_round)
		put(s->ooe, n, n->state);
	if (s->clock != (in_round ? before : n->round))
		violation(f, "server %lld decides for %lld's vote in round %lld, at clock %lld: "
			  "its round's votes %s", id, n->v.leader, n->round, s->clock,
			  in_round ? "decided, which keep the clock" :
			  "did not decide, those outside it set the clock to the round");
}

/* The election state a point shows: state, clock, FLE's proposal. */
static void observe(struct zk_fold *f, struct server *s, const cJSON *v)
{
	s->state = state_of(f, v, "state");
	s->clock = num(f, v, "clock");
	s->vote = vote_of(f, v);
	clock_seen(f, s->proc, s->clock);
}

/* The server of a point inside an election: the process that began it. */
static long long sid_of(struct zk_fold *f, const cJSON *v, struct server **s)
{
	long long id = num(f, v, "sid");

	*s = server(f, id);
	if ((*s)->begun && (*s)->proc != (int)num(f, v, "proc"))
		violation(f, "server %lld's old process records after its new one began", id);
	return id;
}

static void on_begin(struct zk_fold *f, const cJSON *v)
{
	long long id = num(f, v, "sid");
	struct server *s = server(f, id);
	int proc = (int)num(f, v, "proc"), fresh = !s->begun || s->proc != proc;
	const cJSON *own = json_get(v, "vote");

	if (!own)
		bad(f, "a Begin without the server's vote");
	if (num(f, v, "voters") < 1)
		bad(f, "a Begin of no voters");
	if (fresh) {
		int had = s->present;

		if (s->pending)
			f->incomplete++;
		memset(s, 0, sizeof(*s));
		s->present = s->begun = 1;
		s->proc = proc;
		observe(f, s, v);
		s->vote = vote_of(f, own);
		s->epoch = num(f, v, "currentEpoch");
		s->zxid = num(f, v, "lastZxid");
		s->voters = num(f, v, "voters");
		if (s->vote.leader != id || s->vote.zxid != s->zxid || s->vote.epoch != s->epoch)
			violation(f, "server %lld starts with the vote (%lld, %lld, %lld), not its "
				  "own (%lld, %lld, %lld)", id, s->vote.leader, s->vote.zxid,
				  s->vote.epoch, id, s->zxid, s->epoch);
		window(f, had ? "ServerRestart" : "ServerStart", own_data(id, s));
	} else {
		if (s->deciding || s->pending)
			violation(f, "server %lld begins an election inside another", id);
		if (num(f, v, "clock") != s->clock)
			violation(f, "server %lld's logical clock changed outside its election, "
				  "%lld to %lld", id, s->clock, num(f, v, "clock"));
		clock_seen(f, s->proc, s->clock);
	}
	s->pending = START;
}

/* A step ends at this point: its window, the state now @post's. */
static void step_ends(struct zk_fold *f, long long id, struct server *s)
{
	switch (s->pending) {
	case START:
		window(f, "StartElection", own_data(id, s));
		break;
	case HANDLE: {
		cJSON *d = server_data(id);

		json_add(d, "from", json_int(s->n.from));
		window(f, "HandleNotification", note_data(d, &s->n));
		break;
	}
	case TIMEOUT:
		window(f, "NotificationTimeout", server_data(id));
		break;
	default:
		break;
	}
	s->pending = NONE;
}

static void on_dequeue(struct zk_fold *f, const cJSON *v)
{
	struct server *s;
	long long id = sid_of(f, v, &s), before = s->clock;
	const cJSON *n = json_get(v, "n");
	const cJSON *timeout = json_get(v, "timeout");

	if (!s->begun || s->deciding || !s->pending)
		violation(f, "server %lld polls outside an election", id);
	if (!n || !cJSON_IsBool(timeout))
		bad(f, "a Dequeue without n and timeout");
	observe(f, s, v);
	s->epoch = num(f, v, "currentEpoch");
	s->zxid = num(f, v, "lastZxid");
	if (s->pending == START) {
		clear(s->recv);
		clear(s->ooe);
	} else if (s->pending == HANDLE) {
		handled(s, &s->n, before);
	}
	if (count(s->recv) != num(f, v, "votes") || count(s->ooe) != num(f, v, "outside"))
		violation(f, "server %lld counts %lld votes of its election and %lld outside it, "
			  "the notifications it handled give %d and %d", id, num(f, v, "votes"),
			  num(f, v, "outside"), count(s->recv), count(s->ooe));
	step_ends(f, id, s);
	if (cJSON_IsTrue(timeout)) {
		s->pending = TIMEOUT;
		return;
	}
	s->pending = HANDLE;
	s->n = (struct note){ num(f, n, "sid"), id, num(f, n, "round"), state_of(f, n, "state"),
			      vote_of(f, n) };
}

/*
 * The decision: a FOLLOWING or LEADING notification's makes its vote the
 * server's (the vote lookForLeader returns, Leave checks it); a LOOKING
 * one's is the proposal the point shows.
 */
static void on_decide(struct zk_fold *f, const cJSON *v)
{
	struct server *s;
	long long id = sid_of(f, v, &s), before = s->clock;

	if (!s->begun || s->deciding || (s->pending != HANDLE && s->pending != TIMEOUT))
		violation(f, "server %lld decides outside an election's step", id);
	observe(f, s, v);
	if (s->pending == HANDLE && (s->n.state == FOLLOWING || s->n.state == LEADING)) {
		decided_by(f, id, s, before);
		s->vote = s->n.v;
	} else if (s->pending == HANDLE) {
		handled(s, &s->n, before);
	}
	if (num(f, v, "to") != s->vote.leader)
		violation(f, "server %lld decides for %lld, its vote is for %lld", id,
			  num(f, v, "to"), s->vote.leader);
	step_ends(f, id, s);
	s->deciding = 1;
}

static void on_leave(struct zk_fold *f, const cJSON *v)
{
	struct server *s;
	long long id = sid_of(f, v, &s);
	const cJSON *end = json_get(v, "vote");
	struct vote was;

	if (!s->deciding || !end)
		violation(f, "server %lld leaves an election it did not decide", id);
	was = s->vote;
	observe(f, s, v);
	s->vote = vote_of(f, end);
	if (!same_vote(s->vote, was) || num(f, end, "round") != s->clock)
		violation(f, "server %lld leaves with the vote (%lld, %lld, %lld) of round %lld, "
			  "it decided (%lld, %lld, %lld) in round %lld", id, s->vote.leader,
			  s->vote.zxid, s->vote.epoch, num(f, end, "round"), was.leader, was.zxid,
			  was.epoch, s->clock);
	if ((s->state == LEADING) != (s->vote.leader == id) || s->state == LOOKING)
		violation(f, "server %lld leaves %s with a vote for %lld", id,
			  zk_states[s->state], s->vote.leader);
	window(f, s->state == LEADING ? "BecomeLeader" : "BecomeFollower", server_data(id));
	s->deciding = 0;
}

static void on_send(struct zk_fold *f, const cJSON *v)
{
	struct note n = note_of(f, v);
	cJSON *d = json_obj();

	server(f, n.from);
	server(f, n.to);
	f->sent = xrealloc(f->sent, (f->nsent + 1) * sizeof(*f->sent));
	f->sent[f->nsent++] = (struct sent){ n, 0 };
	json_add(d, "from", json_int(n.from));
	json_add(d, "to", json_int(n.to));
	window(f, "Notification", note_data(d, &n));
}

static int same_note(const struct note *a, const struct note *b)
{
	return a->from == b->from && a->to == b->to && a->round == b->round &&
	       a->state == b->state && same_vote(a->v, b->v);
}

/*
 * A notification received takes the oldest such one sent and not yet
 * received; else it is one received again: QuorumCnxManager's SendWorker
 * sends the last message to its peer again on a new connection
 * ("duplicate messages are handled correctly by the peer"), so it must
 * have been sent, from its sender to its receiver, before.
 */
static void on_receive(struct zk_fold *f, const cJSON *v)
{
	struct note n = note_of(f, v);
	size_t i, again;

	while (f->first_open < f->nsent && f->sent[f->first_open].received)
		f->first_open++;
	for (i = f->first_open; i < f->nsent && (f->sent[i].received || !same_note(&f->sent[i].n, &n)); i++)
		;
	if (i < f->nsent) {
		f->sent[i].received = 1;
		f->received++;
		return;
	}
	for (again = 0; again < f->nsent && !same_note(&f->sent[again].n, &n); again++)
		;
	if (again == f->nsent)
		violation(f, "server %lld received from %lld a notification never sent (%s, "
			  "round %lld, vote (%lld, %lld, %lld))", n.to, n.from, zk_states[n.state],
			  n.round, n.v.leader, n.v.zxid, n.v.epoch);
	f->again++;
}

/* One leader an epoch; a follower takes it following that leader. */
static void on_epoch(struct zk_fold *f, const cJSON *v)
{
	long long id = num(f, v, "sid"), e = num(f, v, "epoch"), lead = num(f, v, "leader");
	int st = state_of(f, v, "state");

	server(f, id);
	if (e < 0 || e >= 64)
		bad(f, "an epoch from 0 to 63");
	if (st == LEADING && lead != id)
		violation(f, "server %lld leads epoch %lld with a vote for %lld", id, e, lead);
	if (st != LEADING && st != FOLLOWING)
		violation(f, "server %lld takes epoch %lld %s", id, e, zk_states[st]);
	if (f->leader_of[e] && f->leader_of[e] != lead)
		violation(f, "server %lld takes epoch %lld %s %lld, whose leader is %lld", id, e,
			  st == LEADING ? "as a second leader beside" : "following", lead,
			  f->leader_of[e]);
	f->leader_of[e] = lead;
}

static void on_event(struct zk_fold *f, const cJSON *v)
{
	static const struct { const char *name; void (*fn)(struct zk_fold *, const cJSON *); } on[] = {
		{ "Begin", on_begin }, { "Dequeue", on_dequeue }, { "Decide", on_decide },
		{ "Leave", on_leave }, { "Send", on_send }, { "Receive", on_receive },
		{ "Epoch", on_epoch },
	};
	const char *e = json_get_str(v, "event");

	for (size_t i = 0; e && i < sizeof(on) / sizeof(on[0]); i++)
		if (!strcmp(e, on[i].name)) {
			on[i].fn(f, v);
			return;
		}
	bad(f, "not an event of fle.probes (Begin, Dequeue, Decide, Leave, Send, Receive, Epoch)");
}

static void fold_zookeeper(struct fold_run *run)
{
	struct zk_fold f = { .run = run };
	cJSON *initial, *v, *notes;

	line_reader_open_as(&f.in, run->path, run->input);
	initial = state_json(&f);
	fold_run_windows(run, &folder_zookeeper, initial);
	cJSON_Delete(initial);
	while ((v = ndjson_next(&f.in))) {
		events_add(run->events, v);
		on_event(&f, v);
		cJSON_Delete(v);
	}
	line_reader_close(&f.in);
	for (int i = 1; i <= MAX_SERVERS; i++)
		f.incomplete += f.s[i].pending != NONE || f.s[i].deciding;
	notes = json_add(run->info, "notifications", json_obj());
	json_add(notes, "sent", json_int((long long)f.nsent));
	json_add(notes, "received", json_int((long long)f.received));
	json_add(notes, "not_received", json_int((long long)(f.nsent - f.received)));
	json_add(notes, "received_again", json_int((long long)f.again));
	json_add(run->info, "steps_cut_short", json_int(f.incomplete));
	free(f.sent);
	free(f.clock);
}

static const char *const zk_actions[] = {
	"Notification", "HandleNotification", "BecomeLeader", NULL,
};

static const char *const zk_actor[] = { "server", "from", NULL };

static const struct itf_var zk_itf[] = {
	{ "state", "map" }, { "logicalClock", "map" }, { "currentVote", "map" },
	{ "receiveVotes", "map(map)" }, { "outOfElection", "map(map)" }, { "currentEpoch", "map" },
	{ "lastZxid", "map" },
	{ 0 }
};

const struct folder folder_zookeeper = {
	.name = "zookeeper",
	.summary = "ZooKeeper's Fast Leader Election by SysMoBench's zookeeper task, from the JVM agent",
	.actions = zk_actions,
	.form = FORM_EVENT,
	.fold = fold_zookeeper,
	.audit = &zk_audit,
	.itf = zk_itf,
	.actor = zk_actor,
};
