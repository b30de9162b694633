// SPDX-License-Identifier: MIT
/*
 * etcd-task's audit domain: etcd's (folders/raft/raft-audit.c), the same
 * cells, read from the task's shape -- the acting node (the message's
 * "to", else "node") and its slice of each variable -- and each
 * impossible cell drawn as a window in that shape: the transition as if
 * raft could make it, on a 3-node cluster at term 2 (the task's cluster),
 * node 1 acting in the row's role, every log 2 entries of term 2,
 * commit 1; node 2 the leader unless node 1 is.  A handler's message
 * comes from node 2 (the leader; node 3 for a vote request); a new term
 * is 3; a snapshot is of index 2, the log's last.  The post is what the action does where it can: an append, a
 * grant, a step down to follower on a current leader's message, a
 * commit (docs/task-projections.md).  A cell impossible only by what a sender
 * sends draws none (by_sender_only()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../raft/raft-audit.h"

#define TERM 2
#define LOG 2      /* every node's last index */
#define ACTOR "1"

static const char *const ids[] = { "1", "2", "3" };
static const char *const vars[] = { "currentTerm", "state", "votedFor",
				    "commitIndex", "logLen", "logLastTerm" };

#define N_IDS 3
#define N_VARS 6

/* raft's role names in the task, the domain's row labels. */
static const char *const states[][2] = {
	{ "StateFollower", "follower" }, { "StatePreCandidate", "precandidate" },
	{ "StateCandidate", "candidate" }, { "StateLeader", "leader" },
};

#define N_STATES 4

/* @role in the other naming: from the row's label if @from_row, else to it. */
static const char *state_name(const char *role, int from_row)
{
	for (int i = 0; role && i < N_STATES; i++)
		if (!strcmp(states[i][from_row], role))
			return states[i][!from_row];
	return NULL;
}

static long long var_int(const cJSON *st, const char *var, const char *id)
{
	long long n = 0;

	json_get_int(json_get(st, var), id, &n);
	return n;
}

/* Node @id's slice of task state @st, as the domain reads it; NULL: none. */
static cJSON *slice(const cJSON *st, const char *id)
{
	const char *role = state_name(json_get_str(json_get(st, "state"), id), 0);
	const char *vote = json_get_str(json_get(st, "votedFor"), id);
	cJSON *s;

	if (!role || !vote)
		return NULL;
	s = json_obj();
	json_add(s, "role", json_str(role));
	json_add(s, "term", json_int(var_int(st, "currentTerm", id)));
	json_add(s, "vote", json_str(vote));
	json_add(s, "commit", json_int(var_int(st, "commitIndex", id)));
	json_add(s, "log", json_int(var_int(st, "logLen", id)));
	return s;
}

/* The message's fields the domain reads: from, term, index. */
static cJSON *message(const cJSON *input)
{
	const cJSON *index = json_get(input, "prevLogIndex");
	const char *from = json_get_str(input, "from");
	long long n;
	cJSON *d = json_obj();

	if (!index)
		index = json_get(input, "logIndex");
	if (from)
		json_add(d, "from", json_str(from));
	if (!json_get_int(input, "term", &n))
		json_add(d, "term", json_int(n));
	if (index)
		json_add(d, "index", json_dup(index));
	return d;
}

static int task_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	const char *node = json_get_str(w->data, "to");
	cJSON *pre, *post, *d;
	int in;

	if (!node)
		node = json_get_str(w->data, "node");
	if (!node)
		return 0;
	pre = slice(w->pre, node);
	post = slice(w->post, node);
	d = message(w->data);
	in = pre && raft_audit_cell(w->action, d, pre, post, row, col);
	cJSON_Delete(pre);
	cJSON_Delete(post);
	cJSON_Delete(d);
	return in;
}

static void set(cJSON *st, const char *var, const char *id, cJSON *v)
{
	cJSON_ReplaceItemInObject((cJSON *)json_get(st, var), id, v);
}

/* The cluster before the step: node 1 in state @role (the task's name). */
static cJSON *cluster(const char *role)
{
	int leads = !strcmp(role, "StateLeader");
	const char *leader = leads ? ACTOR : "2";
	cJSON *st = json_obj();

	for (int v = 0; v < N_VARS; v++) {
		cJSON *m = json_add(st, vars[v], json_obj());

		for (int i = 0; i < N_IDS; i++) {
			int me = !strcmp(ids[i], ACTOR);
			const char *vote = me && (leads || !strcmp(role, "StateCandidate"))
					   ? ACTOR : leader;
			const char *s = me ? role : !strcmp(ids[i], leader)
				? "StateLeader" : "StateFollower";

			json_add(m, ids[i],
				 v == 1 ? json_str(s) : v == 2 ? json_str(vote) :
				 json_int(v == 3 ? 1 : v == 4 ? LOG : TERM));
		}
	}
	return st;
}

/* The message a handler @action receives, of term @term. */
static cJSON *received(const char *action, long long term, int entries)
{
	int vote = !strcmp(action, "HandleVoteRequest");
	int append = !strcmp(action, "HandleAppendEntries");
	int snap = !strcmp(action, "HandleSnapshot");
	cJSON *m = json_obj();

	json_add(m, "type", json_str(vote ? "MsgVote" : append ? "MsgApp" :
				     snap ? "MsgSnap" : "MsgHeartbeat"));
	json_add(m, "from", json_str(vote ? "3" : "2"));
	json_add(m, "to", json_str(ACTOR));
	json_add(m, "term", json_int(term));
	if (vote) {
		json_add(m, "logIndex", json_int(LOG));
		json_add(m, "logTerm", json_int(TERM));
	} else if (append) {
		json_add(m, "prevLogIndex", json_int(LOG));
		json_add(m, "prevLogTerm", json_int(TERM));
		json_add(m, "entries", json_int(entries));
		json_add(m, "commitIndex", json_int(1));
	} else if (snap) {
		json_add(m, "snapshotIndex", json_int(LOG));
	} else {
		json_add(m, "commitIndex", json_int(2));
	}
	return m;
}

/* Node 1 appends an entry of its term. */
static void appends(cJSON *post)
{
	set(post, "logLen", ACTOR, json_int(var_int(post, "logLen", ACTOR) + 1));
	set(post, "logLastTerm", ACTOR,
	    json_int(var_int(post, "currentTerm", ACTOR)));
}

/*
 * @action with outcome @result (NULL: none) by node 1, pre-role @role,
 * the term rising if @new_term: {"action", "input", "pre_state",
 * "post_state"}.
 */
static cJSON *draw(const char *role, const char *action, const char *result,
		   int new_term)
{
	cJSON *w = json_obj(), *pre = cluster(state_name(role, 1)), *post;
	int handler = !strncmp(action, "Handle", 6);
	long long term = TERM + new_term;

	post = json_dup(pre);
	json_add(w, "action", json_str(action));
	if (handler) {
		json_add(w, "input", received(action, term,
					      result && !strcmp(result, "appended")));
		if (new_term) {
			set(post, "currentTerm", ACTOR, json_int(term));
			set(post, "votedFor", ACTOR, json_str("0"));
		}
		if (strcmp(action, "HandleVoteRequest"))
			set(post, "state", ACTOR, json_str("StateFollower"));
	} else {
		cJSON *in = json_add(w, "input", json_obj());

		json_add(in, "node", json_str(ACTOR));
	}
	if (!strcmp(action, "ElectionTimeout")) {
		set(post, "currentTerm", ACTOR, json_int(TERM + 1));
		set(post, "state", ACTOR, json_str("StateCandidate"));
		set(post, "votedFor", ACTOR, json_str(ACTOR));
	} else if (!strcmp(action, "BecomeLeader")) {
		set(post, "state", ACTOR, json_str("StateLeader"));
		appends(post);
	} else if (!strcmp(action, "Commit")) {
		set(post, "commitIndex", ACTOR, json_int(2));
	} else if (result && !strcmp(result, "granted")) {
		set(post, "votedFor", ACTOR, json_str("3"));
	} else if (result && !strcmp(result, "commit advanced")) {
		set(post, "commitIndex", ACTOR, json_int(2));
	} else if (result && !strcmp(result, "appended")) {
		appends(post);
	}
	json_add(w, "pre_state", pre);
	json_add(w, "post_state", post);
	return w;
}

/*
 * Does raft's own handler make @action's @result from the cell's state,
 * given the window's input?  Then the cell is impossible only by what a
 * sender never sends or what the trace never shows, not at the task's
 * granularity, where the message (or the proposal) is the window's input:
 * no window, as one would zero a spec that does what raft does with that
 * input.  A heartbeat's commit: handleHeartbeat commits what the message
 * says (raft.go:1836), and a leader sends min(Match, committed);
 * a snapshot of a new term: Step adopts the term, handleSnapshot restores
 * it, and a leader sends MsgSnap only to a node in its term; a dropped
 * proposal: stepFollower and stepCandidate drop or forward MsgProp,
 * changing nothing (raft.go:1684, 1720), untraced.
 */
static int by_sender_only(const char *action, const char *result)
{
	if (!result)
		return !strcmp(action, "HandleSnapshot");
	return (!strcmp(action, "HandleHeartbeat") &&
		!strcmp(result, "commit advanced")) ||
	       (!strcmp(action, "ClientProposal") && !strcmp(result, "dropped"));
}

/* Column @col as its action, outcome and whether the term rose. */
static cJSON *task_impossible_windows(const char *row, const char *col)
{
	static const char rise[] = ", new term";
	char *action = xstrdup(col), *result, *end;
	size_t n = strlen(action), k = sizeof(rise) - 1;
	int new_term = n > k && !strcmp(action + n - k, rise);
	cJSON *all = NULL;

	if (new_term)
		action[n - k] = '\0';
	end = strchr(action, ' ');
	result = end ? end + 1 : NULL;
	if (end)
		*end = '\0';
	if (raft_etcd_impossible(row, col) && !by_sender_only(action, result)) {
		all = json_arr();
		json_add(all, NULL, draw(row, action, result, new_term));
	}
	free(action);
	return all;
}

const struct audit_domain etcd_task_audit = {
	.describes = "etcd's classes (folders/raft/raft-audit.c) over the task's "
		     "shape: pre-state of the acting node x action x outcome x "
		     "term rose",
	.axes = raft_audit_axes,
	.classify = task_classify,
	.impossible = raft_etcd_impossible,
	.impossible_windows = task_impossible_windows,
};
