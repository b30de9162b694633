// SPDX-License-Identifier: MIT
/*
 * The raft projection's audit domain (etcd's, and every raft's folded into
 * the projection), by classes: a window's data (terms, indexes, entry
 * counts) is unbounded, so cells are (pre-role of the acting node) x
 * (action, its outcome, whether the acting node's term rose).  Outcomes
 * are what the projection {role, term, vote, commit, log} shows:
 *  HandleVoteRequest:   granted (vote = the candidate afterwards) | rejected;
 *  HandleAppendEntries: appended (log grew) | rejected (stale term, or the
 *                       message starts past the node's log) | no new entries
 *                       (accepted nothing new -- or a log-term mismatch,
 *                       which the projection cannot tell apart);
 *  HandleHeartbeat:     commit advanced | unchanged;
 *  ClientProposal:      appended | dropped (not a leader).
 * Membership windows (AddNode, RemoveNode) and UntracedChange fall outside.
 *
 * Impossible cells: what upstream go.etcd.io/raft/v3 (raft.go) and PGo's
 * raftkvs (systems/raftkvs/raftkvs.tla, which shares this domain) both
 * cannot produce, given how the folds draw windows: a handler's window
 * opens at the traced Step entry (its pre-role is the role then) and takes
 * in every change until the node's next traced event, which may include
 * an untraced step-down or a term rise (a stale MsgPreVoteResp with a
 * higher term reaches becomeFollower untraced) -- but never a log append,
 * a vote for someone, or a non-leader's commit, which only traced
 * handlers make.  So cells that such taken-in changes could fill stay
 * reachable.  Those only raftkvs reaches (a non-leader's ClientProposal
 * dropped with a leader hint; a follower's or candidate's Commit:
 * raftkvs's applyLoop does not re-check the role after stepping down) are
 * impossible in etcd's domain alone (etcd_only).
 */
#include <string.h>
#include "../../capture/audit.h"
#include "../../capture/json.h"
#include "../../capture/fold.h"
#include "raft-audit.h"

struct raft_class {
	const char *action;
	const char *results[4];   /* NULL-terminated; none: one class */
	int term_may_rise;        /* new-term variants are in the domain */
};

static const struct raft_class classes[] = {
	{ "ElectionTimeout", { NULL }, 0 },
	{ "HandleVoteRequest", { "granted", "rejected", NULL }, 1 },
	{ "HandleAppendEntries", { "appended", "no new entries", "rejected", NULL }, 1 },
	{ "HandleHeartbeat", { "commit advanced", "unchanged", NULL }, 1 },
	{ "ClientProposal", { "appended", "dropped", NULL }, 0 },
	{ "BecomeLeader", { NULL }, 0 },
	{ "BecomeFollower", { NULL }, 1 },
	{ "Commit", { NULL }, 0 },
	{ "HandleSnapshot", { NULL }, 1 },
};

static const char *const roles[] = { "follower", "precandidate", "candidate",
				     "leader" };

#define N_CLASSES (sizeof(classes) / sizeof(classes[0]))

static void add_cols(struct audit_axes *ax, const struct raft_class *c,
		     const char *result)
{
	const char *sep = result ? " " : "";

	if (!result)
		result = "";
	audit_add_col(ax, "%s%s%s", c->action, sep, result);
	if (c->term_may_rise)
		audit_add_col(ax, "%s%s%s, new term", c->action, sep, result);
}

void raft_audit_axes(struct audit_axes *ax, const cJSON *learned)
{
	(void)learned;
	for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
		audit_add_row(ax, "%s", roles[r]);
	for (size_t i = 0; i < N_CLASSES; i++) {
		if (!classes[i].results[0])
			add_cols(ax, &classes[i], NULL);
		for (int r = 0; classes[i].results[r]; r++)
			add_cols(ax, &classes[i], classes[i].results[r]);
	}
}

static long long field(const cJSON *slice, const char *key)
{
	long long n = 0;

	json_get_int(slice, key, &n);
	return n;
}

static const char *outcome(const char *a, const cJSON *data,
			   const cJSON *pre, const cJSON *post)
{
	const char *from = json_get_str(data, "from");
	const char *vote = json_get_str(post, "vote");
	long long term = 0, index = 0;

	if (!strcmp(a, "HandleVoteRequest"))
		return from && vote && !strcmp(from, vote) ? "granted" : "rejected";
	if (!strcmp(a, "HandleAppendEntries")) {
		if (field(post, "log") > field(pre, "log"))
			return "appended";
		json_get_int(data, "term", &term);
		json_get_int(data, "index", &index);
		return term < field(pre, "term") || index > field(pre, "log")
			       ? "rejected" : "no new entries";
	}
	if (!strcmp(a, "HandleHeartbeat"))
		return field(post, "commit") > field(pre, "commit")
			       ? "commit advanced" : "unchanged";
	if (!strcmp(a, "ClientProposal"))
		return field(post, "log") > field(pre, "log") ? "appended"
							      : "dropped";
	return NULL;
}

int raft_audit_cell(const char *action, const cJSON *data, const cJSON *pre,
		    const cJSON *post, struct strbuf *row, struct strbuf *col)
{
	const char *role = json_get_str(pre, "role"), *result;

	if (!role || !post)
		return 0;
	result = outcome(action, data, pre, post);
	strbuf_addstr(row, role);
	strbuf_addf(col, "%s%s%s%s", action, result ? " " : "",
		    result ? result : "",
		    field(post, "term") > field(pre, "term") &&
			    strcmp(action, "ElectionTimeout") ? ", new term" : "");
	return 1;
}

static int raft_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	const char *node = json_get_str(w->data, "node");
	const cJSON *pre = node ? json_get(json_get(w->pre, "nodes"), node) : NULL;
	const cJSON *post = node ? json_get(json_get(w->post, "nodes"), node) : NULL;

	return raft_audit_cell(w->action, w->data, pre, post, row, col);
}

struct impossible_cell {
	const char *row, *col, *why;
};

static const struct impossible_cell impossible[] = {
	{ "follower", "ClientProposal appended",
	  "only a leader appends a proposal: stepFollower forwards MsgProp to "
	  "the leader untraced (appendEntry, which traces Replicate, runs in "
	  "stepLeader and becomeLeader); a raftkvs follower answers with a "
	  "leader hint" },
	{ "follower", "BecomeLeader",
	  "becomeLeader panics on a follower; only a candidate that won "
	  "becomes leader (raftkvs: await state = Candidate)" },
	{ "follower", "BecomeFollower",
	  "becomeFollower at the follower's own term changes nothing the "
	  "projection shows (reset keeps the vote within a term), so no "
	  "window; raftkvs steps down only on a higher term" },
	{ "precandidate", "ClientProposal appended",
	  "stepCandidate drops MsgProp untraced (\"no leader\"); only a "
	  "leader appends; raftkvs has no pre-candidates" },
	{ "precandidate", "ClientProposal dropped",
	  "stepCandidate drops MsgProp without a trace event, so no window; "
	  "raftkvs has no pre-candidates" },
	{ "precandidate", "BecomeLeader",
	  "a pre-candidate that wins its pre-vote campaigns (becomeCandidate, "
	  "traced) before it can become leader" },
	{ "precandidate", "Commit",
	  "maybeCommit, which traces Commit, runs only on a leader "
	  "(stepLeader's MsgAppResp, switchToConfig when StateLeader); "
	  "raftkvs has no pre-candidates" },
	{ "candidate", "HandleVoteRequest granted",
	  "a candidate voted for itself in its term (becomeCandidate sets "
	  "Vote = id) and Step's canVote then needs the request to come from "
	  "itself; raftkvs: votedFor \\in {Nil, j}" },
	{ "candidate", "HandleHeartbeat commit advanced",
	  "a heartbeat carries min(Match, committed) (sendHeartbeat): Match > "
	  "0 needs an MsgAppResp the node sent as a follower in the leader's "
	  "term, after which it is never a candidate in that term" },
	{ "candidate", "HandleHeartbeat commit advanced, new term",
	  "a heartbeat from a higher term carries commit min(Match, "
	  "committed) = 0 for a node not yet in that term (sendHeartbeat), and "
	  "a candidate's commit moves only in such handlers" },
	{ "candidate", "ClientProposal appended",
	  "stepCandidate drops MsgProp; only a leader appends (raftkvs: "
	  "state = Leader)" },
	{ "leader", "ElectionTimeout",
	  "becomeCandidate panics on a leader, hup ignores MsgHup when "
	  "leader, and a leader leaves only by becomeFollower, which is "
	  "traced (raftkvs: await state \\in {Follower, Candidate})" },
	{ "leader", "HandleVoteRequest granted",
	  "a leader voted for itself in its term (becomeLeader keeps "
	  "becomeCandidate's Vote = id, lead = id), so canVote is false at "
	  "that term" },
	{ "leader", "HandleAppendEntries appended",
	  "election safety: a MsgApp of the leader's own term could only "
	  "come from itself; stepLeader has no MsgApp case and Step ignores "
	  "lower terms" },
	{ "leader", "HandleAppendEntries no new entries",
	  "the class needs the MsgApp's term to be the leader's own (lower: "
	  "rejected; higher: becomeFollower, new term), which election "
	  "safety rules out" },
	{ "leader", "BecomeLeader",
	  "becomeLeader runs only in stepCandidate (VoteWon) and campaign's "
	  "single-voter shortcut, never on a leader" },
};

/*
 * Cells raftkvs reaches (its applyLoop does not re-check the role; a
 * non-leader answers a proposal with a leader hint) but go.etcd.io/raft/v3
 * v3.7.0 cannot: only a leader traces what opens these windows.  And the
 * new-term cells of a heartbeat that advances a commit and of a snapshot,
 * which etcd's fold no longer fills by a term rise no message of the
 * window brings (a rejected pre-vote's receipt: folders/raft/raft.c,
 * untraced_rise); raftkvs's fold was not examined for them.
 */
#define HIGHER_BEAT "a heartbeat of a higher term carries commit min(Match, " \
	"committed) = 0 for a node not yet in that term (sendHeartbeat, " \
	"raft.go:694): Match moves only on an MsgAppResp of the leader's own " \
	"term; a later term no message of the window brings (a rejected " \
	"MsgPreVoteResp, Step, raft.go:1113-1131) is a BecomeFollower window " \
	"of its own"
#define HIGHER_SNAP "a leader sends MsgSnap only to a node whose Next fell " \
	"below its first index (maybeSendSnapshot, raft.go:666), and Next moves down only " \
	"on an MsgAppResp rejection of the leader's own term, so the node is " \
	"in that term already; a later term no message of the window brings " \
	"(a rejected MsgPreVoteResp, Step, raft.go:1113-1131) is a " \
	"BecomeFollower window of its own"
static const struct impossible_cell etcd_only[] = {
	{ "follower", "HandleHeartbeat commit advanced, new term", HIGHER_BEAT },
	{ "precandidate", "HandleHeartbeat commit advanced, new term", HIGHER_BEAT },
	{ "leader", "HandleHeartbeat commit advanced, new term",
	  HIGHER_BEAT "; a leader's commit by a configuration switch comes in "
	  "a stale heartbeat's window, of no higher term" },
	{ "follower", "HandleSnapshot, new term", HIGHER_SNAP },
	{ "precandidate", "HandleSnapshot, new term", HIGHER_SNAP },
	{ "candidate", "HandleSnapshot, new term", HIGHER_SNAP },
	{ "leader", "HandleSnapshot, new term", HIGHER_SNAP },
	{ "follower", "ClientProposal dropped",
	  "a ClientProposal window opens at Replicate or ChangeConf, traced "
	  "only in appendEntry (raft.go:831) and stepLeader's MsgProp "
	  "(raft.go:1344), both on a leader; stepFollower drops a proposal "
	  "with no leader or with DisableProposalForwarding untraced "
	  "(ErrProposalDropped, raft.go:1723, 1726)" },
	{ "follower", "Commit",
	  "Commit is traced only by maybeCommit (raft.go:776), called by "
	  "stepLeader's MsgAppResp (raft.go:1550) and by switchToConfig when "
	  "StateLeader (raft.go:2010-2014); a follower's commit moves in "
	  "handleAppendEntries, handleHeartbeat or restore, inside their "
	  "Receive windows" },
	{ "candidate", "ClientProposal dropped",
	  "stepCandidate drops MsgProp untraced (ErrProposalDropped, "
	  "raft.go:1686); Replicate and ChangeConf are traced on a leader "
	  "only (raft.go:831, 1344)" },
	{ "candidate", "Commit",
	  "maybeCommit (raft.go:776), which traces Commit, runs only in "
	  "StateLeader (raft.go:1550, 2010-2014); a candidate's commit moves "
	  "only inside a handler's window (stepCandidate: becomeFollower, "
	  "then the handler)" },
};

static const char *lookup_cell(const struct impossible_cell *cells, size_t n,
			       const char *row, const char *col)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cells[i].row, row) && !strcmp(cells[i].col, col))
			return cells[i].why;
	return NULL;
}

const char *raft_audit_impossible(const char *row, const char *col)
{
	return lookup_cell(impossible, sizeof(impossible) / sizeof(impossible[0]),
			   row, col);
}

const char *raft_etcd_impossible(const char *row, const char *col)
{
	const char *why = raft_audit_impossible(row, col);

	return why ? why : lookup_cell(etcd_only,
				       sizeof(etcd_only) / sizeof(etcd_only[0]),
				       row, col);
}

#define DESCRIBES "classes, since terms and indexes are unbounded: pre-role " \
	"of the acting node x action x outcome (granted/rejected, " \
	"appended/no new entries/rejected, commit advanced, dropped) x term rose"

const struct audit_domain raft_etcd_audit = {
	.describes = DESCRIBES,
	.axes = raft_audit_axes,
	.classify = raft_classify,
	.impossible = raft_etcd_impossible,
};

const struct audit_domain raft_audit = {
	.describes = DESCRIBES,
	.axes = raft_audit_axes,
	.classify = raft_classify,
	.impossible = raft_audit_impossible,
};
