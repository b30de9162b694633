// SPDX-License-Identifier: MIT
/*
 * The raft projection's fold: etcd-io/raft clusters from upstream's
 * `with_tla` trace events, and every raft whose probe spec writes the same
 * events (folders/hashicorp/, folders/raftrs/).
 *
 * Input: upstream's TracingEvents (state_trace.go: name, nid, state {term,
 * vote, commit}, role, log (lastIndex), conf, msg, prop), bare or
 * zap-wrapped, as with-tla.h reads them.  Live captures (capture etcd)
 * emit the same schema.
 *
 * Observable state {"nodes": {id: {role, term, vote, commit, log}}}, ids as
 * strings sorted as numbers.  Each event carries its node's state at the
 * moment it was traced; what changed since the node's previous event is
 * attributed as follows (docs/fold-recorded.md has the derivation):
 *  - Receive* events are traced before the message is handled: they open
 *    the node's handler, which absorbs every change seen until the node
 *    starts something else, a peer receives a message the node sent while
 *    handling, the node's Ready, or the end.  MsgVote -> HandleVoteRequest, MsgApp ->
 *    HandleAppendEntries, MsgHeartbeat -> HandleHeartbeat (targets);
 *    MsgSnap -> HandleSnapshot; responses open no window of their own.
 *  - BecomeCandidate is traced after the change: ElectionTimeout.
 *  - Replicate / ChangeConf are traced before the leader appends:
 *    ClientProposal (entries of one proposal trace one Replicate each, with
 *    the same state: one window); ProposalDropped (the probes' or the
 *    harness's, no upstream event) ends it, "dropped" in its data.
 *  - BecomeLeader opens an auxiliary window that takes in the empty entry
 *    the new leader appends; BecomeFollower and Commit outside a handler are
 *    auxiliary windows; a role change to pre-candidate (no trace point of
 *    its own) is BecomePreCandidate; any other change that no event
 *    accounts for (e.g. a log bootstrapped straight into storage) is an
 *    UntracedChange window.
 *  - A known node's InitState is a restart from its storage: one Restart
 *    window, up to the BecomeFollower that ends newRaft.
 *  - A node enters at its first event (InitState): in the initial state if
 *    no window was written yet, else by an AddNode window; it leaves by a
 *    RemoveNode window when some node applies a configuration that drops it
 *    (ApplyConfChange: conf[0] before, prop.cc.newconf after); later events
 *    of a removed node are counted and ignored.
 * Checks, per event (so errors name the line that shows the violation):
 * a node's term, commit and log never decrease (but a follower's log may be
 * cut to its commit index while it handles an append or a snapshot, and a
 * restart may lose the volatile commit); a restart keeps term and vote
 * within the term, and may lose a log tail above its persisted commit;
 * commit <= log; at most one leader per term;
 * ElectionTimeout gives term+1, candidate, vote = self.
 * A window changes only its node's slice by construction.
 *
 * The task projection (etcd-task, folders/etcd/etcd-task.c) writes the same
 * windows grouped by variable -- currentTerm, state (raft's role names,
 * StatePreCandidate its own), votedFor, commitIndex, logLen, logLastTerm
 * -- with the received message as the input.  The term of each node's
 * entries is followed as raft makes them: a leader appends entries of its
 * term; an append carries the sender's entries, whose terms are read from
 * the sender's log when its SendAppendEntriesRequest is traced, and the
 * receiver keeps, truncates and appends them as raft's findConflict does
 * (the length it reaches must be the one traced).  A log grown any other
 * way (a snapshot, storage, a restart) has terms nobody traced: a window
 * whose state would need one is refused.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/ndjson.h"
#include "raft-steps.h"
#include "raft.h"
#include "../../capture/fold.h"
#include "../../capture/readers/with-tla.h"

struct slice {
	const char *role;   /* a static string: follower, candidate, ... */
	long long term, commit, log;
	char vote[24];
};

/* An entry's term that no event shows (etcd-entries writes null). */
#define TERM_UNKNOWN (-2)

/* The terms of a log's entries, as far as they were observed. */
struct terms {
	long long *t;       /* t[i]: the term of entry i + 1, or TERM_UNKNOWN */
	size_t n, cap;
	int unknown;        /* grew in a way no trace shows (etcd-task refuses) */
};

/* A sent append's (or snapshot's) entries' terms, while it may be received. */
struct sent_terms {
	char *msg;          /* the message, as msg_key() writes it */
	struct terms terms;
};

/*
 * Appends received are kept this long for a duplicate of one (the
 * explorer's `duplicate`): one not found has terms nobody traced.
 */
#define RECEIVED_KEPT 256

struct node {
	char id[24];
	unsigned long long num;
	int present, removed;
	struct slice s;       /* latest state, changes absorbed so far */
	struct slice shown;   /* state as of the node's last window */
	const char *open;     /* action whose window is pending, or NULL */
	struct slice pre;     /* the open action's pre-state slice */
	long long open_term;  /* the highest term the open action may reach */
	cJSON *data;          /* the open action's data */
	char **sent;          /* messages sent during the open action */
	size_t nsent;
	struct terms log_terms;  /* etcd-task, etcd-entries */
	struct terms shown_terms;
	struct terms append;     /* the open append's (snapshot's) entries' terms */
	int append_known;
	long long append_index, append_log_term, append_term;
	cJSON *conf;             /* the voters it last switched to */
};

struct leader {
	long long term;
	char id[24];
};

/* The highest commit a node showed while in a term. */
struct term_commit {
	long long term, commit;
};

struct raft_fold {
	struct fold_run *run;
	struct line_reader r;
	struct node *nodes;
	size_t n;
	struct leader *leaders;
	size_t nleaders;
	int started;          /* windows opened */
	long ignored_removed;
	struct term_commit *commits;
	size_t ncommits;
	struct raft_steps *steps;  /* the scenario's step map, or NULL */
	const struct folder *folder;
	enum raft_shape proj;
	struct sent_terms *appends;  /* appends sent, not yet received */
	size_t nappends;
	struct sent_terms received[RECEIVED_KEPT];  /* a ring, for duplicates */
	size_t nreceived;
};

/*
 * A check failed at the current line: raft's rules or the fold are wrong.
 * With a step map the message names the scenario step that made the line.
 */
__attribute__((format(printf, 2, 3)))
static _Noreturn void violation(struct raft_fold *f, const char *fmt, ...)
{
	const char *step = raft_step_at(f->steps, f->r.line);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (step)
		die_at(EXIT_CHECK_FAILED, step, 0, "%s (%s:%ld)", msg,
		       f->r.path, f->r.line);
	die_at(EXIT_CHECK_FAILED, f->r.path, f->r.line, "%s", msg);
}

/* The second string of the pair in @map whose first is @key, or NULL. */
static const char *lookup(const char *const (*map)[2], size_t n,
			  const char *key)
{
	for (size_t i = 0; key && i < n; i++)
		if (!strcmp(key, map[i][0]))
			return map[i][1];
	return NULL;
}

static const char *role_name(struct raft_fold *f, const char *role)
{
	static const char *const map[][2] = {
		{ "StateFollower", "follower" },
		{ "StateCandidate", "candidate" },
		{ "StateLeader", "leader" },
		{ "StatePreCandidate", "precandidate" },
	};
	const char *name = lookup(map, sizeof(map) / sizeof(map[0]), role);

	if (!name)
		die_at(EXIT_BAD_INPUT, f->r.path, f->r.line, "unknown role %s",
		       role ? role : "(missing)");
	return name;
}

static int slice_eq(const struct slice *a, const struct slice *b)
{
	return a->role == b->role && a->term == b->term &&
	       a->commit == b->commit && a->log == b->log &&
	       !strcmp(a->vote, b->vote);
}

static void copy_id(struct raft_fold *f, char *dst, const char *src,
		    const char *what)
{
	if (!src || !*src || strlen(src) >= 24)
		die_at(EXIT_BAD_INPUT, f->r.path, f->r.line,
		       "event without a valid %s", what);
	strcpy(dst, src);
}

static void snapshot(struct raft_fold *f, const cJSON *ev, struct slice *s)
{
	const cJSON *st = json_get(ev, "state");

	if (!cJSON_IsObject(st))
		die_at(EXIT_BAD_INPUT, f->r.path, f->r.line,
		       "event without a state object");
	s->role = role_name(f, json_get_str(ev, "role"));
	s->term = ndjson_natural(&f->r, st, "term");
	s->commit = ndjson_natural(&f->r, st, "commit");
	s->log = ndjson_natural(&f->r, ev, "log");
	copy_id(f, s->vote, json_get_str(st, "vote"), "state.vote");
}

static char *msg_key(const cJSON *msg);

static void terms_resize(struct terms *t, size_t n)
{
	if (n > t->cap) {
		t->cap = n * 2;
		t->t = xrealloc(t->t, t->cap * sizeof(*t->t));
	}
	t->n = n;
}

static void terms_copy(struct terms *dst, const struct terms *src)
{
	terms_resize(dst, src->n);
	if (src->n)
		memcpy(dst->t, src->t, src->n * sizeof(*src->t));
	dst->unknown = src->unknown;
}

static void terms_free(struct terms *t)
{
	free(t->t);
	memset(t, 0, sizeof(*t));
}

/* The term of entry @i (0 before the first), or -1 if there is none. */
static long long term_at(const struct terms *t, long long i)
{
	if (i == 0)
		return 0;
	return i > 0 && (size_t)i <= t->n ? t->t[i - 1] : -1;
}

/*
 * @n's log is now @len long, by no step whose entries' terms the trace
 * shows: a cut keeps the terms it had, growth makes them unknown.
 */
static void terms_untraced(struct node *n, long long len)
{
	struct terms *t = &n->log_terms;
	size_t old = t->n;

	if ((size_t)len > old)
		t->unknown = 1;
	terms_resize(t, (size_t)len);
	for (size_t i = old; i < t->n; i++)
		t->t[i] = TERM_UNKNOWN;
}

/* @t as etcd-entries writes it: a term each entry, null if untraced. */
static cJSON *terms_json(const struct terms *t)
{
	cJSON *a = json_arr();

	for (size_t i = 0; i < t->n; i++)
		cJSON_AddItemToArray(a, t->t[i] == TERM_UNKNOWN ? json_null()
								: json_int(t->t[i]));
	return a;
}

/* Whether entries @from + 1 .. @to of @t all have their terms traced. */
static int terms_known(const struct terms *t, size_t from, size_t to)
{
	for (size_t i = from; i < to && i < t->n; i++)
		if (t->t[i] == TERM_UNKNOWN)
			return 0;
	return 1;
}

/*
 * The entries above @commit of a restarted log came from its storage,
 * which may hold a tail the node had since replaced (an etcd member killed
 * between a conflicting append and its save): their terms are not traced.
 * Committed entries never change.
 */
static void terms_forget_above(struct terms *t, long long commit)
{
	for (size_t i = (size_t)commit; i < t->n; i++)
		t->t[i] = TERM_UNKNOWN;
}

/* Entry @i's term is @term, if no event showed it yet. */
static void term_learn(struct terms *t, long long i, long long term)
{
	if (i > 0 && (size_t)i <= t->n && t->t[i - 1] == TERM_UNKNOWN)
		t->t[i - 1] = term;
}

/*
 * @n's log moved to @now outside an append handler: a leader's appends
 * are entries of its term.  (An append's effect is followed when its
 * handler closes, follow_append().)
 */
static void follow_log(struct node *n, const struct slice *now)
{
	struct terms *t = &n->log_terms;
	size_t old = t->n;

	if (n->open && !strcmp(n->open, "HandleAppendEntries"))
		return;
	if (!strcmp(now->role, "leader") && (size_t)now->log >= old) {
		terms_resize(t, (size_t)now->log);
		for (size_t i = old; i < t->n; i++)
			t->t[i] = now->term;
		return;
	}
	terms_untraced(n, now->log);
}

/*
 * Raft's findConflict on terms all traced: keep the entries that match,
 * cut at the first that does not, append the rest.
 */
static void find_conflict(struct node *n)
{
	struct terms *t = &n->log_terms;

	for (size_t i = 0; i < n->append.n; i++) {
		long long at = n->append_index + 1 + (long long)i;

		if (term_at(t, at) == n->append.t[i])
			continue;
		terms_resize(t, (size_t)at);
		t->t[at - 1] = n->append.t[i];
	}
}

/*
 * The same where a term is not traced: whatever matched, the entries
 * after the append's index are the message's, and the old ones after
 * those stay only if none conflicted -- which the length traced tells.
 */
static void append_untraced(struct raft_fold *f, struct node *n)
{
	struct terms *t = &n->log_terms;
	const struct terms *m = &n->append;
	size_t idx = (size_t)n->append_index, old = t->n;
	size_t last = idx + m->n, len = (size_t)n->s.log;
	int kept = len > last;

	if (kept && len != old)
		violation(f, "node %s's log is %zu entries after an append that "
			  "ends at %zu, but it had %zu", n->id, len, last, old);
	if (!n->append_known && len > old)
		t->unknown = 1;
	terms_resize(t, kept ? len : last);
	for (size_t i = old; i < t->n; i++)
		t->t[i] = TERM_UNKNOWN;
	for (size_t i = 0; i < m->n; i++)
		if (m->t[i] != TERM_UNKNOWN)
			t->t[idx + i] = m->t[i];
		else if (!kept || idx + i >= old)
			t->t[idx + i] = TERM_UNKNOWN;
}

/*
 * An append whose previous entry's term no event showed, and which left
 * the length as it was: a reject and an accepted append look alike, so
 * an entry it may have replaced by another term has a term unknown.
 */
static void append_undecided(struct node *n)
{
	struct terms *t = &n->log_terms;
	const struct terms *m = &n->append;
	size_t idx = (size_t)n->append_index;

	for (size_t i = 0; i < m->n && idx + i < t->n; i++)
		if (m->t[i] != t->t[idx + i])
			t->t[idx + i] = TERM_UNKNOWN;
}

/*
 * The open append of @n is handled: raft ignores it below its commit,
 * accepts it if its term is current and the entry at its index has its
 * logTerm (then that entry's term is known), and appends as
 * findConflict does.  The length reached must be the one traced.
 */
static void follow_append(struct raft_fold *f, struct node *n)
{
	struct terms *t = &n->log_terms;
	long long idx = n->append_index, prev = term_at(t, idx);
	int accept = n->append_term >= n->pre.term && idx >= n->pre.commit &&
		     (prev == n->append_log_term || prev == TERM_UNKNOWN);

	if (accept && !n->append_known && n->append.n == 0)
		accept = 0;
	if (accept && prev == TERM_UNKNOWN && (size_t)n->s.log == t->n) {
		append_undecided(n);
		accept = 0;
	}
	if (accept) {
		term_learn(t, idx, n->append_log_term);
		if (n->append_known && terms_known(&n->append, 0, n->append.n) &&
		    terms_known(t, (size_t)idx, t->n))
			find_conflict(n);
		else
			append_untraced(f, n);
	}
	if (t->n != (size_t)n->s.log)
		violation(f, "%s: node %s's log is %lld entries after the "
			  "append from index %lld, but raft's rule on the terms "
			  "traced gives %zu", f->folder->name, n->id, n->s.log,
			  idx, t->n);
}

/*
 * The open snapshot of @n is handled: if raft restored it (the log is
 * now the snapshot's index long, where it was not, or its term there
 * differs), the log is the sender's up to that index.
 */
static void follow_snapshot(struct node *n)
{
	struct terms *t = &n->log_terms;
	const struct terms *m = &n->append;
	size_t idx = m->n;

	if (!n->append_known || (size_t)n->s.log != idx ||
	    ((size_t)n->pre.log == idx && term_at(t, (long long)idx) ==
	     term_at(m, (long long)idx)))
		return;
	terms_resize(t, idx);
	for (size_t i = 0; i < idx; i++)
		t->t[i] = m->t[i];
}

/*
 * A leader sends an append or a snapshot: its entries' terms, read from
 * its log now (a snapshot: entries 1 to its index).  Its logTerm is its
 * log's term at its index.
 */
static void remember_append(struct raft_fold *f, struct node *n,
			    const cJSON *msg)
{
	const char *type = json_get_str(msg, "type");
	long long idx = ndjson_natural(&f->r, msg, "index");
	long long k = ndjson_natural(&f->r, msg, "entries");
	long long log_term = ndjson_natural(&f->r, msg, "logTerm");
	struct terms *t = &n->log_terms;
	struct sent_terms *st;

	if (!type || (strcmp(type, "MsgApp") && strcmp(type, "MsgSnap")) ||
	    idx + k > (long long)t->n)
		return;
	term_learn(t, idx, log_term);
	if (term_at(t, idx) != log_term)
		violation(f, "%s: node %s sends an append whose logTerm at "
			  "index %lld is not the term its log shows there (%lld)",
			  f->folder->name, n->id, idx, term_at(t, idx));
	f->appends = xrealloc(f->appends, (f->nappends + 1) * sizeof(*f->appends));
	st = &f->appends[f->nappends++];
	memset(st, 0, sizeof(*st));
	st->msg = msg_key(msg);
	terms_resize(&st->terms, (size_t)k);
	for (long long i = 0; i < k; i++)
		st->terms.t[i] = t->t[idx + i];
}

/* The sent message @key's terms into @into; 0 if it was not seen sent. */
static int sent_terms_of(struct raft_fold *f, const char *key,
			 struct terms *into)
{
	for (size_t i = 0; i < f->nappends; i++) {
		struct sent_terms *r;

		if (strcmp(f->appends[i].msg, key))
			continue;
		terms_copy(into, &f->appends[i].terms);
		/* kept for a duplicate: the ring's oldest gives way */
		r = &f->received[f->nreceived++ % RECEIVED_KEPT];
		free(r->msg);
		terms_free(&r->terms);
		*r = f->appends[i];
		f->appends[i] = f->appends[--f->nappends];
		return 1;
	}
	for (size_t i = 0; i < RECEIVED_KEPT; i++)
		if (f->received[i].msg && !strcmp(f->received[i].msg, key)) {
			terms_copy(into, &f->received[i].terms);
			return 1;
		}
	return 0;
}

/*
 * The received append or snapshot @msg's entries' terms into @n, if it was
 * seen sent (else unknown).  etcd-entries gives the append's in its data.
 */
static void received_append(struct raft_fold *f, struct node *n,
			    const cJSON *msg)
{
	char *key = msg_key(msg);

	n->append_index = ndjson_natural(&f->r, msg, "index");
	n->append_log_term = ndjson_natural(&f->r, msg, "logTerm");
	n->append_term = ndjson_natural(&f->r, msg, "term");
	n->append_known = sent_terms_of(f, key, &n->append);
	if (!n->append_known) {
		terms_resize(&n->append,
			     (size_t)ndjson_natural(&f->r, msg, "entries"));
		for (size_t i = 0; i < n->append.n; i++)
			n->append.t[i] = TERM_UNKNOWN;
	}
	if (f->proj == RAFT_ENTRIES && !strcmp(n->open, "HandleAppendEntries"))
		json_add(n->data, "entryTerms", terms_json(&n->append));
	free(key);
}

/* raft's own name of a role, as etcd-task writes it */
static const char *raft_role(const char *role)
{
	static const char *const map[][2] = {
		{ "follower", "StateFollower" },
		{ "candidate", "StateCandidate" },
		{ "leader", "StateLeader" },
		{ "precandidate", "StatePreCandidate" },
	};

	return lookup(map, sizeof(map) / sizeof(map[0]), role);
}

static long long last_term(struct raft_fold *f, const struct node *n)
{
	const struct terms *t = &n->shown_terms;

	if (t->unknown)
		die_at(EXIT_BAD_INPUT, f->r.path, f->r.line, "etcd-task: the "
		       "term of node %s's last entry is not observable: its log "
		       "grew by no append and no leader's proposal that the trace "
		       "shows (a snapshot, storage or a restart)", n->id);
	return t->n ? t->t[t->n - 1] : 0;
}

/* etcd-task: the state grouped by variable, each a map node -> value. */
static cJSON *task_state(struct raft_fold *f)
{
	static const char *const vars[] = {
		"currentTerm", "state", "votedFor", "commitIndex", "logLen",
		"logLastTerm",
	};
	cJSON *st = json_obj(), *v[6];

	for (int k = 0; k < 6; k++)
		v[k] = json_add(st, vars[k], json_obj());
	for (size_t i = 0; i < f->n; i++) {
		const struct node *n = &f->nodes[i];

		if (!n->present)
			continue;
		json_add(v[0], n->id, json_int(n->shown.term));
		json_add(v[1], n->id, json_str(raft_role(n->shown.role)));
		json_add(v[2], n->id, json_str(n->shown.vote));
		json_add(v[3], n->id, json_int(n->shown.commit));
		json_add(v[4], n->id, json_int(n->shown.log));
		json_add(v[5], n->id, json_int(last_term(f, n)));
	}
	return st;
}

static cJSON *state_json(struct raft_fold *f)
{
	cJSON *st, *nodes;

	if (f->proj == RAFT_TASK)
		return task_state(f);
	st = json_obj();
	nodes = json_add(st, "nodes", json_obj());

	for (size_t i = 0; i < f->n; i++) {
		const struct node *n = &f->nodes[i];
		cJSON *o;

		if (!n->present)
			continue;
		o = json_add(nodes, n->id, json_obj());
		json_add(o, "role", json_str(n->shown.role));
		json_add(o, "term", json_int(n->shown.term));
		json_add(o, "vote", json_str(n->shown.vote));
		json_add(o, "commit", json_int(n->shown.commit));
		json_add(o, "log", json_int(n->shown.log));
		if (f->proj == RAFT_ENTRIES)
			json_add(o, "logTerms", terms_json(&n->shown_terms));
	}
	return st;
}

static void start(struct raft_fold *f)
{
	cJSON *st;

	if (f->started)
		return;
	f->started = 1;
	st = state_json(f);
	fold_run_windows(f->run, f->folder, st);
	cJSON_Delete(st);
}

/* A node in term @term showed commit @commit. */
static void note_commit(struct raft_fold *f, long long term, long long commit)
{
	for (size_t i = 0; i < f->ncommits; i++)
		if (f->commits[i].term == term) {
			if (commit > f->commits[i].commit)
				f->commits[i].commit = commit;
			return;
		}
	f->commits = xrealloc(f->commits, (f->ncommits + 1) * sizeof(*f->commits));
	f->commits[f->ncommits++] = (struct term_commit){ term, commit };
}

/*
 * The highest index shown committed by a node in a term below @term: an
 * entry committed by then was committed in such a term, and every leader
 * of @term holds it (leader completeness).
 */
static long long committed_before(const struct raft_fold *f, long long term)
{
	long long c = 0;

	for (size_t i = 0; i < f->ncommits; i++)
		if (f->commits[i].term < term && f->commits[i].commit > c)
			c = f->commits[i].commit;
	return c;
}

/*
 * At most one leader per term (election safety), and a new leader's log
 * holds every entry shown committed in an earlier term (leader
 * completeness, as far as the projection's log lengths show it).
 */
static void check_leader(struct raft_fold *f, const struct node *n)
{
	for (size_t i = 0; i < f->nleaders; i++) {
		if (f->leaders[i].term != n->s.term)
			continue;
		if (strcmp(f->leaders[i].id, n->id))
			violation(f, "node %s leads term %lld, which node %s already "
			       "led", n->id, n->s.term, f->leaders[i].id);
		return;
	}
	if (n->s.log < committed_before(f, n->s.term))
		violation(f, "node %s leads term %lld with a log of %lld "
			  "entries, but %lld were committed in earlier terms",
			  n->id, n->s.term, n->s.log,
			  committed_before(f, n->s.term));
	f->leaders = xrealloc(f->leaders,
			      (f->nleaders + 1) * sizeof(*f->leaders));
	f->leaders[f->nleaders].term = n->s.term;
	strcpy(f->leaders[f->nleaders++].id, n->id);
}

/*
 * Whether @n's log may shrink to @now: only while it handles a leader's
 * append or snapshot, which cut a conflicting uncommitted suffix
 * (handleAppendEntries, restore), never below what it had committed.
 */
static int log_cut(const struct node *n, const struct slice *now)
{
	return n->open && now->log >= n->s.commit &&
	       (!strcmp(n->open, "HandleAppendEntries") ||
		!strcmp(n->open, "HandleSnapshot"));
}

/* Move @n's slice to @now, checking what may never happen in between. */
static void advance(struct raft_fold *f, struct node *n,
		    const struct slice *now)
{
	const struct slice *s = &n->s;

	if (now->term < s->term || now->commit < s->commit ||
	    (now->log < s->log && !log_cut(n, now)))
		violation(f, "node %s goes back: term %lld->%lld, commit %lld->%lld, "
		       "log %lld->%lld", n->id, s->term, now->term, s->commit,
		       now->commit, s->log, now->log);
	if (now->commit > now->log)
		violation(f, "node %s commits %lld beyond its log %lld", n->id,
		       now->commit, now->log);
	if (f->proj != RAFT_NODES)
		follow_log(n, now);
	n->s = *now;
	note_commit(f, now->term, now->commit);
	if (!strcmp(now->role, "leader"))
		check_leader(f, n);
}

static void check_timeout(struct raft_fold *f, const struct node *n,
			  const struct slice *pre)
{
	const struct slice *s = &n->s;

	if (s->term != pre->term + 1 || strcmp(s->role, "candidate") ||
	    strcmp(s->vote, n->id))
		violation(f, "ElectionTimeout of node %s gives term %lld, role %s, "
		       "vote %s (expected term %lld, candidate, vote %s)",
		       n->id, s->term, s->role, s->vote, pre->term + 1, n->id);
}

/*
 * One window: node @n's shown slice becomes its latest state under @action
 * (other nodes keep their shown slices: their pending changes belong to
 * actions whose windows come later).
 */
static void emit(struct raft_fold *f, struct node *n, const char *action,
		 cJSON *data)
{
	cJSON *st;

	start(f);
	n->shown = n->s;
	if (f->proj != RAFT_NODES)
		terms_copy(&n->shown_terms, &n->log_terms);
	if (!data) {
		data = json_obj();
		json_add(data, "node", json_str(n->id));
	}
	st = state_json(f);
	windows_add(f->run->windows, action, data, st);
}

static void forget_sent(struct node *n)
{
	for (size_t i = 0; i < n->nsent; i++)
		free(n->sent[i]);
	free(n->sent);
	n->sent = NULL;
	n->nsent = 0;
}

static char *msg_key(const cJSON *msg)
{
	struct strbuf sb = STRBUF_INIT;

	json_write(&sb, msg, JSON_COMPACT);
	return sb.buf;
}

static void remember_sent(struct node *n, const cJSON *msg)
{
	if (!n->open || !msg)
		return;
	n->sent = xrealloc(n->sent, (n->nsent + 1) * sizeof(*n->sent));
	n->sent[n->nsent++] = msg_key(msg);
}

static int sent_now(const struct node *n, const cJSON *msg)
{
	char *key;
	int found = 0;

	if (!n->nsent)
		return 0;
	key = msg_key(msg);
	for (size_t i = 0; i < n->nsent && !found; i++)
		found = !strcmp(n->sent[i], key);
	free(key);
	return found;
}

static void close_open(struct raft_fold *f, struct node *n)
{
	const char *action = n->open;

	forget_sent(n);
	if (!action)
		return;
	n->open = NULL;
	if (f->proj != RAFT_NODES && !strcmp(action, "HandleAppendEntries"))
		follow_append(f, n);
	if (f->proj != RAFT_NODES && !strcmp(action, "HandleSnapshot"))
		follow_snapshot(n);
	emit(f, n, action, n->data);
	n->data = NULL;
}

static void open_action(struct node *n, const char *action, cJSON *data)
{
	n->open = action;
	n->pre = n->s;
	n->open_term = n->s.term;
	n->data = data;
}

/* The label of a change no open action accounts for. */
static const char *aux_label(const char *event, const struct slice *old,
			     const struct slice *now)
{
	if (!strcmp(event, "BecomeFollower") || !strcmp(event, "Commit"))
		return event;
	if (old->role != now->role && !strcmp(now->role, "follower"))
		return "BecomeFollower";
	/* becomePreCandidate has no trace point: only its role shows */
	if (old->role != now->role && !strcmp(now->role, "precandidate"))
		return "BecomePreCandidate";
	return "UntracedChange";
}

/*
 * @n became a pre-candidate since its previous event while a window is
 * open: no handler does that (becomePreCandidate runs only in a campaign,
 * from MsgHup; it has no trace point and changes only the role of what
 * the projection shows), so the window closes without the role and a
 * BecomePreCandidate window follows.  (A window a stale message left open,
 * no Ready having closed it, would else take in the next campaign.)
 */
static int pre_campaign(struct raft_fold *f, struct node *n,
			const struct slice *now)
{
	struct slice before = *now;

	if (!n->open || now->role == n->s.role ||
	    strcmp(now->role, "precandidate"))
		return 0;
	before.role = n->s.role;
	advance(f, n, &before);
	close_open(f, n);
	advance(f, n, now);
	emit(f, n, "BecomePreCandidate", NULL);
	return 1;
}

/*
 * @n's term rose past what its open action can reach (a message raises
 * the term to its own, no other action raises it): something untraced
 * made it a follower of a later term -- upstream traces no receipt of a
 * rejected MsgPreVoteResp, which does that (raft.go, Step, the
 * m.GetTerm() > r.Term branch; the probes trace one, ReceivePreVoteResponse,
 * and close the window there).  The window closes before the rise, which
 * gets a window of its own, labelled by the event that shows it
 * (BecomeFollower).  A window that mixed the two would show a step no
 * handler takes.
 */
static int untraced_rise(struct raft_fold *f, struct node *n,
			 const char *event, const struct slice *now)
{
	struct slice old = n->s;

	if (!n->open || now->term <= n->open_term)
		return 0;
	close_open(f, n);
	advance(f, n, now);
	emit(f, n, aux_label(event, &old, now), NULL);
	return 1;
}

/* Account for what changed in @n since its previous event. */
static void observe(struct raft_fold *f, struct node *n, const char *event,
		    const struct slice *now)
{
	struct slice old = n->s;

	if (slice_eq(&old, now) || pre_campaign(f, n, now) ||
	    untraced_rise(f, n, event, now))
		return;
	advance(f, n, now);
	if (!n->open)
		emit(f, n, aux_label(event, &old, now), NULL);
}

static struct node *find_node(struct raft_fold *f, const char *id)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->nodes[i].id, id))
			return &f->nodes[i];
	return NULL;
}

static struct node *add_node(struct raft_fold *f, const char *id,
			     const struct slice *s)
{
	unsigned long long num = strtoull(id, NULL, 10);
	size_t at = 0;
	struct node *n;

	while (at < f->n && (f->nodes[at].num < num ||
			     (f->nodes[at].num == num &&
			      strcmp(f->nodes[at].id, id) < 0)))
		at++;
	f->nodes = xrealloc(f->nodes, (f->n + 1) * sizeof(*f->nodes));
	memmove(f->nodes + at + 1, f->nodes + at,
		(f->n - at) * sizeof(*f->nodes));
	f->n++;
	n = &f->nodes[at];
	memset(n, 0, sizeof(*n));
	copy_id(f, n->id, id, "nid");
	n->num = num;
	n->present = 1;
	n->s = *s;
	n->shown = *s;
	/* a log a node starts with comes from storage: its terms untraced */
	terms_untraced(n, s->log);
	terms_copy(&n->shown_terms, &n->log_terms);
	if (f->started)
		emit(f, n, "AddNode", NULL);
	return n;
}

/*
 * etcd-task's input: the message as received, under the names the task's
 * handlers read (type, from, to, term; logIndex, logTerm of a vote
 * request; prevLogIndex, prevLogTerm, entries -- how many -- and
 * commitIndex of an append; commitIndex of a heartbeat).
 */
static cJSON *task_input(struct raft_fold *f, const struct node *n,
			 const cJSON *msg, const char *action)
{
	static const char *const names[][2] = {
		{ "index", "logIndex" }, { "logTerm", "logTerm" },
	};
	static const char *const append[][2] = {
		{ "index", "prevLogIndex" }, { "logTerm", "prevLogTerm" },
		{ "entries", "entries" }, { "commit", "commitIndex" },
	};
	static const char *const beat[][2] = { { "commit", "commitIndex" } };
	static const char *const snap[][2] = { { "entries", "snapshotIndex" } };
	const char *const (*fields)[2] = names;
	size_t nf = 2;
	cJSON *d = json_obj();
	char from[24];

	if (!strcmp(action, "HandleAppendEntries"))
		fields = append, nf = 4;
	else if (!strcmp(action, "HandleHeartbeat"))
		fields = beat, nf = 1;
	else if (!strcmp(action, "HandleSnapshot"))
		fields = snap, nf = 1;
	copy_id(f, from, json_get_str(msg, "from"), "msg.from");
	json_add(d, "type", json_str(json_get_str(msg, "type")));
	json_add(d, "from", json_str(from));
	json_add(d, "to", json_str(n->id));
	json_add(d, "term", json_int(ndjson_natural(&f->r, msg, "term")));
	for (size_t i = 0; i < nf; i++)
		json_add(d, fields[i][1],
			 json_int(ndjson_natural(&f->r, msg, fields[i][0])));
	return d;
}

static cJSON *msg_data(struct raft_fold *f, const struct node *n,
		       const cJSON *msg, const char *action)
{
	cJSON *d;
	char from[24];

	if (f->proj == RAFT_TASK)
		return task_input(f, n, msg, action);
	d = json_obj();

	copy_id(f, from, json_get_str(msg, "from"), "msg.from");
	json_add(d, "node", json_str(n->id));
	json_add(d, "from", json_str(from));
	json_add(d, "term", json_int(ndjson_natural(&f->r, msg, "term")));
	if (!strcmp(action, "HandleSnapshot")) {
		/* upstream traces the snapshot's index as entries, no term */
		json_add(d, "index", json_int(ndjson_natural(&f->r, msg, "entries")));
	} else if (strcmp(action, "HandleHeartbeat")) {
		json_add(d, "logTerm", json_int(ndjson_natural(&f->r, msg, "logTerm")));
		json_add(d, "index", json_int(ndjson_natural(&f->r, msg, "index")));
	}
	if (!strcmp(action, "HandleAppendEntries"))
		json_add(d, "entries", json_int(ndjson_natural(&f->r, msg, "entries")));
	if (strcmp(action, "HandleVoteRequest") && strcmp(action, "HandleSnapshot"))
		json_add(d, "commit", json_int(ndjson_natural(&f->r, msg, "commit")));
	return d;
}

/* What a received message's handler is called (NULL: no window). */
static const char *handler(struct raft_fold *f, const cJSON *msg)
{
	static const char *const map[][2] = {
		{ "MsgApp", "HandleAppendEntries" },
		{ "MsgHeartbeat", "HandleHeartbeat" },
		{ "MsgVote", "HandleVoteRequest" },
		{ "MsgSnap", "HandleSnapshot" },
	};
	const char *type = json_get_str(msg, "type");

	if (!type)
		die_at(EXIT_BAD_INPUT, f->r.path, f->r.line,
		       "receive event without msg.type");
	return lookup(map, sizeof(map) / sizeof(map[0]), type);
}

static void receive(struct raft_fold *f, struct node *n, const cJSON *ev,
		    const struct slice *now)
{
	const cJSON *msg = json_get(ev, "msg");
	const char *action = handler(f, msg);
	struct node *sender;

	/*
	 * A message the sender sent during its open action is being handled:
	 * that action's window must come first.
	 */
	sender = find_node(f, json_get_str(msg, "from") ?
			   json_get_str(msg, "from") : "");
	if (sender && sender != n && sender->present && sent_now(sender, msg))
		close_open(f, sender);
	observe(f, n, "Receive", now);
	close_open(f, n);
	if (action) {
		long long term = ndjson_natural(&f->r, msg, "term");

		open_action(n, action, msg_data(f, n, msg, action));
		if (term > n->open_term)
			n->open_term = term;
	}
	if (f->proj != RAFT_NODES && action &&
	    (!strcmp(action, "HandleAppendEntries") ||
	     !strcmp(action, "HandleSnapshot")))
		received_append(f, n, msg);
}

static void replicate(struct raft_fold *f, struct node *n,
		      const struct slice *now)
{
	/*
	 * becomeLeader's empty entry, traced before anything is appended (a
	 * proposal may follow before the next Ready: etcd's server proposes
	 * as soon as it leads), or a further entry of one proposal
	 */
	if (n->open && ((!strcmp(n->open, "BecomeLeader") &&
			 now->log == n->pre.log) ||
			(!strcmp(n->open, "ClientProposal") &&
			 slice_eq(&n->pre, now))))
		return;
	/* raft before the trace moved: role already leader, not yet traced */
	if (now->role != n->s.role)
		return;
	observe(f, n, "Replicate", now);
	close_open(f, n);
	open_action(n, "ClientProposal", NULL);
}

/*
 * ProposalDropped: @n's appendEntry dropped the proposal just stepped,
 * past its uncommitted-size limit (raft.go:822; stepLeader returns
 * ErrProposalDropped).  The proposal's window (opened by its ChangeConf,
 * or of its own where nothing was traced: Replicate comes after the
 * check) says so in its data, "dropped", and ends there: a grader takes
 * a leader's proposal that changes nothing only so.
 */
static void dropped(struct raft_fold *f, struct node *n)
{
	if (!n->open || strcmp(n->open, "ClientProposal")) {
		close_open(f, n);
		open_action(n, "ClientProposal", NULL);
	}
	if (f->proj != RAFT_TASK) {
		n->data = json_obj();
		json_add(n->data, "node", json_str(n->id));
		json_add(n->data, "dropped", json_bool(1));
	}
	close_open(f, n);
}

/* The voters an ApplyConfChange switches to; NULL: none given. */
static const cJSON *new_conf(const cJSON *ev)
{
	return json_get(json_get(json_get(ev, "prop"), "cc"), "newconf");
}

static int by_id(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	double dx = x->valuestring ? atof(x->valuestring) : x->valuedouble;
	double dy = y->valuestring ? atof(y->valuestring) : y->valuedouble;

	return (dx > dy) - (dx < dy);
}

/*
 * A copy of @conf, its ids in numeric order: etcd's raft sorts the voters
 * it reports, raft-rs's gives its HashSet's order (docs/raftrs.md), and a
 * configuration is a set.
 */
static cJSON *sorted_conf(const cJSON *conf)
{
	int n = cJSON_GetArraySize(conf), i = 0;
	const cJSON **ids = xcalloc(n ? n : 1, sizeof(*ids));
	const cJSON *k;
	cJSON *out = cJSON_CreateArray();

	cJSON_ArrayForEach(k, conf)
		ids[i++] = k;
	qsort(ids, n, sizeof(*ids), by_id);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(out, cJSON_Duplicate(ids[i], 1));
	free(ids);
	return out;
}

/* @n switched to the voters of @ev, an ApplyConfChange. */
static void keep_conf(struct node *n, const cJSON *ev)
{
	const cJSON *newconf = new_conf(ev);

	cJSON_Delete(n->conf);
	n->conf = newconf ? sorted_conf(newconf) : NULL;
}

/*
 * ApplyConfChange: nodes in the old configuration but not the new leave.
 * The old one is upstream's conf[0], or (the probes read no map, so no
 * conf) the one @n last switched to.
 */
static void apply_conf(struct raft_fold *f, struct node *n, const cJSON *ev)
{
	const cJSON *newconf = new_conf(ev);
	const cJSON *conf = json_get(ev, "conf"), *id;
	cJSON *old = n->conf;

	if (conf) {
		cJSON_Delete(old);
		old = cJSON_Duplicate(cJSON_GetArrayItem(conf, 0), 1);
	}
	n->conf = NULL;
	keep_conf(n, ev);

	cJSON_ArrayForEach(id, old) {
		const cJSON *k;
		struct node *gone;
		int kept = 0;

		cJSON_ArrayForEach(k, newconf)
			kept |= cJSON_IsString(k) && cJSON_IsString(id) &&
				!strcmp(k->valuestring, id->valuestring);
		gone = cJSON_IsString(id) ? find_node(f, id->valuestring) : NULL;
		if (kept || !gone || !gone->present || !newconf)
			continue;
		close_open(f, gone);
		gone->present = 0;
		gone->removed = 1;
		emit(f, gone, "RemoveNode", NULL);
	}
	cJSON_Delete(old);
}

/*
 * A handler's window that takes in a configuration switch the application
 * made (an apply before the node's next traced event) says so in its
 * data, "conf": the voters switched to.  What the switch does (a leader's
 * commit by its new quorum, switchToConfig's maybeCommit) is then no
 * effect of the message handled.  A snapshot's own switch (restore) is
 * its handler's.
 */
static void note_switch(struct raft_fold *f, struct node *n, const cJSON *ev)
{
	const cJSON *newconf = new_conf(ev);

	if (!n->open || !n->data || f->proj == RAFT_TASK ||
	    !strcmp(n->open, "HandleSnapshot"))
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(n->data, "conf");
	cJSON_AddItemToObject(n->data, "conf", newconf ? sorted_conf(newconf) : json_arr());
}

/*
 * A known node's InitState: it restarted from its storage.  newRaft traces
 * InitState and ApplyConfChange before it loads the hard state (term 0,
 * vote 0, commit at the storage's snapshot), then becomeFollower with the
 * loaded state: one Restart window from the state before the crash to
 * that.  What survives a crash is what the node persisted (Raft's Figure
 * 2; raft.go's newRaft -> loadState reads HardState {Term, Vote, Commit}
 * and the stable log from Storage), so the check is on that:
 *  - term and vote never go back: raft queues every response that reveals
 *    them (votes, append acks, the leader's self-ack) in msgsAfterAppend,
 *    sent only once the Ready holding them is saved (raft.go send(),
 *    rawnode.go readyWithoutAccept); etcd's raftNode sends a leader's
 *    messages in parallel with its save (etcdserver/raft.go, "the leader
 *    can write to its disk in parallel"), but a leader's term and vote were
 *    saved while it was a candidate, which saves before it sends.  (A term
 *    or vote held only in memory, never sent, could be lost too; this
 *    check would refuse that.)
 *  - the log may lose a tail that was never persisted (a stop under load),
 *    but not below the persisted commit: etcd saves HardState and entries
 *    of one Ready together (storage.Save), and loadState panics on a
 *    commit beyond the log.  The commit itself may go back to the
 *    persisted one: etcd persists it lazily.
 * Entries committed in the cluster may be missing from the restarted log
 * (a leader's own entries count once two followers saved them); what no
 * node may do is build on that loss: leader completeness (check_leader)
 * and a cut never below the node's own commit (log_cut) keep holding
 * across the restart.
 */
static void restart(struct raft_fold *f, struct node *n)
{
	close_open(f, n);
	open_action(n, "Restart", NULL);
}

static void restarted(struct raft_fold *f, struct node *n, const char *name,
		      const cJSON *ev, const struct slice *now)
{
	const struct slice *pre = &n->pre;

	if (!strcmp(name, "InitState") || !strcmp(name, "ApplyConfChange")) {
		n->s = *now;    /* newRaft's state before loadState */
		if (!strcmp(name, "ApplyConfChange"))
			keep_conf(n, ev);
		return;
	}
	if (strcmp(name, "BecomeFollower"))
		violation(f, "node %s: %s inside its restart (newRaft traces "
		       "InitState, ApplyConfChange, then BecomeFollower)",
		       n->id, name);
	if (now->term < pre->term || now->commit > now->log ||
	    (now->term == pre->term && strcmp(now->vote, pre->vote)))
		violation(f, "node %s restarts without its durable state: term "
		       "%lld->%lld, vote %s->%s, log %lld->%lld with commit "
		       "%lld", n->id, pre->term, now->term, pre->vote,
		       now->vote, pre->log, now->log, now->commit);
	/* storage kept a prefix of the log, or gave it entries untraced */
	terms_untraced(n, now->log);
	if (f->proj == RAFT_ENTRIES)
		terms_forget_above(&n->log_terms, now->commit);
	n->s = *now;
	close_open(f, n);
}

static void dispatch(struct raft_fold *f, struct node *n, const char *name,
		     const cJSON *ev, const struct slice *now)
{
	if (!strcmp(name, "SendPreVoteResponse")) {
		/*
		 * A rejected pre-vote's response: the probes trace it for the
		 * causal check of its receipt (raft.probes); it changes nothing
		 * of its sender, and upstream traces none, so it is no step
		 * and both paths fold the same windows.
		 */
	} else if (!strcmp(name, "InitState")) {
		restart(f, n);
		restarted(f, n, name, ev, now);
	} else if (n->open && !strcmp(n->open, "Restart")) {
		restarted(f, n, name, ev, now);
	} else if (!strncmp(name, "Receive", 7)) {
		receive(f, n, ev, now);
	} else if (!strcmp(name, "BecomeCandidate")) {
		struct slice pre = n->s;

		close_open(f, n);
		advance(f, n, now);
		check_timeout(f, n, &pre);
		emit(f, n, "ElectionTimeout", NULL);
	} else if (!strcmp(name, "Replicate") || !strcmp(name, "ChangeConf")) {
		replicate(f, n, now);
	} else if (!strcmp(name, "BecomeLeader")) {
		if (n->open && strcmp(n->open, "BecomeLeader"))
			close_open(f, n);
		if (!n->open)
			open_action(n, "BecomeLeader", NULL);
		advance(f, n, now);
	} else if (!strcmp(name, "ProposalDropped")) {
		observe(f, n, name, now);
		dropped(f, n);
	} else if (!strcmp(name, "Ready")) {
		observe(f, n, name, now);
		close_open(f, n);
	} else {
		/* BecomeFollower, Commit, Send*, ApplyConfChange */
		observe(f, n, name, now);
		if (!strncmp(name, "Send", 4))
			remember_sent(n, json_get(ev, "msg"));
		if (f->proj != RAFT_NODES &&
		    !strcmp(name, "SendAppendEntriesRequest"))
			remember_append(f, n, json_get(ev, "msg"));
		if (!strcmp(name, "ApplyConfChange"))
			apply_conf(f, n, ev);
		if (!strcmp(name, "ApplyConfChange"))
			note_switch(f, n, ev);
	}
}

static void fold_event(void *ctx, const cJSON *ev)
{
	struct raft_fold *f = ctx;
	const char *name = json_get_str(ev, "name");
	char nid[24];
	struct slice now;
	struct node *n;

	if (!name)
		die_at(EXIT_BAD_INPUT, f->r.path, f->r.line,
		       "event without a name");
	copy_id(f, nid, json_get_str(ev, "nid"), "nid");
	snapshot(f, ev, &now);
	events_add(f->run->events, ev);
	n = find_node(f, nid);
	if (!n) {
		add_node(f, nid, &now);
		return;
	}
	if (n->removed) {
		f->ignored_removed++;
		return;
	}
	dispatch(f, n, name, ev, &now);
}

void raft_fold_projection(struct fold_run *run, const struct folder *folder,
			  enum raft_shape proj)
{
	struct raft_fold f = { .run = run, .folder = folder, .proj = proj,
			       .steps = raft_steps_read(run->step_map) };
	struct cap_err err;
	long long skipped = with_tla_read(&f.r, run->path, run->input,
					  fold_event, &f, &err);

	if (skipped < 0)
		die_err(&err);
	for (size_t i = 0; i < f.n; i++) {
		struct node *n = &f.nodes[i];

		if (n->open && !strcmp(n->open, "Restart"))
			violation(&f, "the input ends inside node %s's restart", n->id);
		if (n->present)
			close_open(&f, n);
	}
	start(&f);
	json_add(run->info, "nodes_seen", json_int((long long)f.n));
	json_add(run->info, "non_trace_lines_skipped", json_int(skipped));
	json_add(run->info, "events_of_removed_nodes_ignored",
		 json_int(f.ignored_removed));
	for (size_t i = 0; i < f.n; i++) {
		terms_free(&f.nodes[i].log_terms);
		terms_free(&f.nodes[i].shown_terms);
		terms_free(&f.nodes[i].append);
		cJSON_Delete(f.nodes[i].conf);
	}
	for (size_t i = 0; i < f.nappends; i++) {
		free(f.appends[i].msg);
		terms_free(&f.appends[i].terms);
	}
	free(f.appends);
	for (size_t i = 0; i < RECEIVED_KEPT; i++) {
		free(f.received[i].msg);
		terms_free(&f.received[i].terms);
	}
	free(f.nodes);
	free(f.leaders);
	free(f.commits);
	raft_steps_free(f.steps);
}

const char *const raft_actions[] = {
	"ElectionTimeout", "HandleVoteRequest", "ClientProposal",
	"HandleAppendEntries", "HandleHeartbeat", NULL,
};

/* Its other windows (the header comment), which refining systems share. */
const char *const raft_auxiliary[] = {
	"BecomeLeader", "BecomeFollower", "BecomePreCandidate", "Commit",
	"HandleSnapshot", "Restart", "UntracedChange", "AddNode",
	"RemoveNode", NULL,
};

/* nodes: node id -> that node's state */
const struct itf_var raft_itf[] = {
	{ "nodes", "map" },
	{ 0 }
};

const char *const raft_actor[] = { "node", NULL };

const struct folder raft_projection = {
	.name = "raft",
	.summary = "the raft projection, which each raft's folder folds into",
	.actions = raft_actions,
	.auxiliary = raft_auxiliary,
	.form = FORM_STREAM,
	.itf = raft_itf,
	.actor = raft_actor,
};
