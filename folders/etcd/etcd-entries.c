// SPDX-License-Identifier: MIT
/*
 * etcd-entries: etcd's projection with each log as its entries' terms
 * (raft.c), its own system as spin-spinning is spin's: {"nodes": {id:
 * {role, term, vote, commit, log, logTerms}}}, logTerms[i] the term of
 * entry i + 1, null where no event shows it; an append's data adds
 * entryTerms, the terms of the entries it carries.  Dropping logTerms
 * and entryTerms gives etcd's windows byte for byte.
 *
 * The terms are followed from the same events as etcd's windows: a
 * leader appends entries of its term; an append or a snapshot carries
 * the sender's entries, read from its log when it is sent; the receiver
 * applies raft's rules (handleAppendEntries, findConflict, restore) and
 * must reach the length traced; a message's logTerm is its sender's term
 * at its index, and an accepted append's is the receiver's.  A log grown
 * otherwise (bootstrapped into storage, a restart's entries above its
 * commit) has terms no event shows: null until a message shows them.
 *
 * Its audit domain is etcd's with the append's outcome told by the terms
 * (folders/raft/raft-audit.c for the others): an append that matches (nothing
 * new), appends, or conflicts and truncates, each with the commit moved
 * to the leader's commit or clamped to its last new entry, or none; one
 * rejected for a previous entry missing, of another term, a stale term,
 * or ignored below the commit.  An append whose previous entry's term no
 * event shows lies outside.
 */
#include <string.h>
#include "../../capture/audit.h"
#include "../../capture/fold.h"
#include "../../capture/json.h"
#include "../raft/raft-audit.h"
#include "../raft/raft.h"
#include "etcd.h"

#define APPEND "HandleAppendEntries"

static const char *const accepted[] = { "matched", "appended", "truncated" };
static const char *const commits[] = { "", ", commit to leader's",
				       ", commit to last new" };
static const char *const rejected[] = { "prev missing", "prev term differs",
					"stale term", "below commit" };

#define N(a) (sizeof(a) / sizeof(a[0]))

static void add_append_cols(struct audit_axes *ax)
{
	for (size_t r = 0; r < N(accepted); r++)
		for (size_t c = 0; c < N(commits); c++)
			for (int t = 0; t < 2; t++)
				audit_add_col(ax, APPEND " %s%s%s", accepted[r],
					      commits[c], t ? ", new term" : "");
	for (size_t r = 0; r < N(rejected); r++)
		for (int t = 0; t < 2; t++)
			audit_add_col(ax, APPEND " %s%s", rejected[r],
				      t ? ", new term" : "");
}

/* etcd's axes, its append's columns replaced where they stood. */
static void entries_axes(struct audit_axes *ax, const cJSON *learned)
{
	struct audit_axes e = { 0 };
	int added = 0;

	raft_audit_axes(&e, learned);
	for (size_t i = 0; i < e.nrows; i++)
		audit_add_row(ax, "%s", e.rows[i]);
	for (size_t i = 0; i < e.ncols; i++) {
		if (strncmp(e.cols[i], APPEND " ", strlen(APPEND) + 1)) {
			audit_add_col(ax, "%s", e.cols[i]);
		} else if (!added) {
			add_append_cols(ax);
			added = 1;
		}
	}
	audit_axes_free(&e);
}

static long long num(const cJSON *o, const char *key)
{
	long long n = 0;

	json_get_int(o, key, &n);
	return n;
}

/* The term of entry @i of @slice's log: 0 before the first, -1 unknown. */
static long long term_of(const cJSON *slice, long long i)
{
	const cJSON *t = cJSON_GetArrayItem(json_get(slice, "logTerms"),
					    (int)i - 1);

	if (i == 0)
		return 0;
	return cJSON_IsNumber(t) ? (long long)t->valuedouble : -1;
}

/* Whether the append cut a conflicting suffix: a term changed, or less log. */
static int truncated(const cJSON *p, const cJSON *q)
{
	long long n = num(p, "log") < num(q, "log") ? num(p, "log") : num(q, "log");

	if (num(q, "log") < num(p, "log"))
		return 1;
	for (long long i = 1; i <= n; i++)
		if (term_of(p, i) >= 0 && term_of(q, i) >= 0 &&
		    term_of(p, i) != term_of(q, i))
			return 1;
	return 0;
}

/* The append's outcome on @p -> @q; NULL if the previous term is untraced. */
static const char *append_outcome(const cJSON *d, const cJSON *p,
				  const cJSON *q, const char **commit)
{
	long long idx = num(d, "index"), last = idx + num(d, "entries");

	*commit = "";
	if (num(d, "term") < num(p, "term"))
		return "stale term";
	if (idx < num(p, "commit"))
		return "below commit";
	if (idx > num(p, "log"))
		return "prev missing";
	if (term_of(p, idx) < 0)
		return NULL;
	if (term_of(p, idx) != num(d, "logTerm"))
		return "prev term differs";
	if (num(q, "commit") > num(p, "commit"))
		*commit = num(q, "commit") == last && last < num(d, "commit")
				  ? commits[2] : commits[1];
	if (truncated(p, q))
		return "truncated";
	return num(q, "log") > num(p, "log") ? "appended" : "matched";
}

static int entries_classify(const struct window *w, struct strbuf *row,
			    struct strbuf *col)
{
	const char *node = json_get_str(w->data, "node"), *result, *commit;
	const cJSON *p = node ? json_get(json_get(w->pre, "nodes"), node) : NULL;
	const cJSON *q = node ? json_get(json_get(w->post, "nodes"), node) : NULL;

	if (strcmp(w->action, APPEND) || !p || !q || !json_get_str(p, "role"))
		return raft_audit_cell(w->action, w->data, p, q, row, col);
	if (!(result = append_outcome(w->data, p, q, &commit)))
		return 0;
	strbuf_addstr(row, json_get_str(p, "role"));
	strbuf_addf(col, APPEND " %s%s%s", result, commit,
		    num(q, "term") > num(p, "term") ? ", new term" : "");
	return 1;
}

/*
 * A leader's append of its own term, in any outcome but a stale term's:
 * etcd's reason for its two such cells, for each of the finer ones.
 */
static const char *entries_impossible(const char *row, const char *col)
{
	size_t n = strlen(col);

	if (strncmp(col, APPEND " ", strlen(APPEND) + 1))
		return raft_etcd_impossible(row, col);
	if (strcmp(row, "leader") || strstr(col, ", new term") ||
	    (n >= 10 && !strcmp(col + n - 10, "stale term")))
		return NULL;
	return "election safety: a MsgApp of the leader's own term could only "
	       "come from itself; stepLeader has no MsgApp case, Step ignores "
	       "lower terms, and a higher one makes it a follower (new term)";
}

static const struct audit_domain entries_audit = {
	.describes = "classes: etcd's (pre-role x action x outcome x term "
		     "rose), an append's outcome told by the terms: matched, "
		     "appended or truncated, with the commit to the leader's or "
		     "to the last new entry; rejected for a missing or "
		     "other-term previous entry, a stale term, below the commit",
	.axes = entries_axes,
	.classify = entries_classify,
	.impossible = entries_impossible,
};

static void fold_entries(struct fold_run *run)
{
	raft_fold_projection(run, &folder_etcd_entries, RAFT_ENTRIES);
}

const struct folder folder_etcd_entries = {
	.name = "etcd-entries",
	.summary = "etcd with each node's log as its entries' terms, followed "
		   "from the same trace events (docs/etcd-entries.md)",
	.actions = raft_actions,
	.form = FORM_STREAM,
	.fold = fold_entries,
	.audit = &entries_audit,
	.itf = raft_itf,
	.actor = raft_actor,
	.refines = &folder_etcd,
};
