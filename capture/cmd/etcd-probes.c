// SPDX-License-Identifier: MIT
/*
 * The raft probe plan: which functions of go.etcd.io/raft/v3 are probed,
 * what each site reads, and how the records become the events upstream's
 * with_tla TraceLogger writes at the same points of the same code.
 *
 * Every state value is read from the process: r.id, r.Term, r.Vote,
 * r.raftLog.committed (upstream's hardState()), r.state (role), and the
 * unstable log's offset and length, from which raftLog.lastIndex() follows
 * (see last_index()).  Offsets come from DWARF at load time.
 *
 * Where upstream calls its trace hook, and where we read the same state:
 *   InitState        newRaft, before Restore     switchToConfig entry inside newRaft
 *                                                 (nothing observable changes between)
 *   ApplyConfChange  switchToConfig, first line  switchToConfig entry
 *   BecomeFollower   becomeFollower, last line   its RETs
 *   BecomeCandidate  becomeCandidate, last line  its RETs
 *   BecomeLeader     becomeLeader, before its    appendEntry entry while becomeLeader
 *                    appendEntry                 is open on the goroutine
 *   Replicate        appendEntry, per normal     appendEntry entry (the uncommitted
 *                    entry, before the append    size check in between changes nothing)
 *   Commit           maybeCommit (deferred)      its RETs
 *   Send*            send, last line             its entry (send only sets From, if
 *                                                 unset, to r.id and, if unset, Term to
 *                                                 r.Term: the event does the same)
 *   Receive*         Step, first line            Step entry
 *   Ready            acceptReady, last line      its entry (nothing it changes is read;
 *                                                 RawNode.Ready calls it, and so does
 *                                                 raft's Node, which etcd's server runs
 *                                                 without RawNode.Ready; a build that
 *                                                 inlined it would be refused)
 * Entries, not RETs, where they read the same: a RET site is single-stepped
 * by uprobes (~10 us on a nested VM), the entry's stack-check JBE emulated.
 * Upstream's "conf" and "prop" fields are not produced.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "../die.h"
#include "etcd-probes.h"

#define RAFT "go.etcd.io/raft/v3."
#define RAFTPB "go.etcd.io/raft/v3/raftpb."
#define MAX_NEW_ENTRIES 4
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Value slots of a record. */
enum {
	S_ID, S_TERM, S_VOTE, S_COMMIT, S_ROLE, S_UNST_LEN, S_UNST_OFF, S_END,
	M_TYPE = S_END, M_TO, M_FROM, M_TERM, M_LOGTERM, M_INDEX, M_COMMIT,
	M_VOTE, M_REJECT, M_REJECT_HINT, M_ENTRIES, M_SNAP_INDEX, M_END,
	A_LEN = S_END, A_TYPE0, A_END = A_TYPE0 + MAX_NEW_ENTRIES,
};

enum handler { H_NONE, H_NEWRAFT_IN, H_NEWRAFT_OUT, H_CONF, H_FOLLOWER,
	       H_CANDIDATE, H_LEADER_IN, H_LEADER_OUT, H_APPEND, H_COMMIT,
	       H_SEND, H_RECEIVE, H_READY };

struct offsets {
	long id, term, vote, raftlog, state;          /* raft */
	long unstable, committed;                     /* raftLog */
	long u_entries, u_offset;                     /* unstable */
	long snap_meta, meta_index;                   /* Snapshot, SnapshotMetadata */
	long e_type;                                  /* Entry */
	long m_type, m_to, m_from, m_term, m_logterm, m_index, m_commit,
	     m_vote, m_reject, m_reject_hint, m_entries, m_snapshot;
	long rn_raft;                                 /* RawNode */
};

/*
 * What is open in one process: newRaft, and becomeLeader before its
 * append.  Processes are kept apart (a live cluster runs one node in each,
 * capture etcd --live); within one, raft runs on one goroutine at a time.
 */
struct proc_open {
	unsigned int pid;
	int newraft_depth;
	int leader_pending;
};

struct etcd_trace {
	FILE *out;
	long events;
	struct proc_open *procs;
	size_t nprocs;
	char *error;
	enum handler handler[GP_MAX_SITES];
};

static void resolve(struct go_binary *b, struct offsets *o)
{
	o->id = go_member(b, RAFT "raft", "id");
	o->term = go_member(b, RAFT "raft", "Term");
	o->vote = go_member(b, RAFT "raft", "Vote");
	o->raftlog = go_member(b, RAFT "raft", "raftLog");
	o->state = go_member(b, RAFT "raft", "state");
	o->unstable = go_member(b, RAFT "raftLog", "unstable");
	o->committed = go_member(b, RAFT "raftLog", "committed");
	o->u_entries = go_member(b, RAFT "unstable", "entries");
	o->u_offset = go_member(b, RAFT "unstable", "offset");
	o->snap_meta = go_member(b, RAFTPB "Snapshot", "Metadata");
	o->meta_index = go_member(b, RAFTPB "SnapshotMetadata", "Index");
	o->e_type = go_member(b, RAFTPB "Entry", "Type");
	o->m_type = go_member(b, RAFTPB "Message", "Type");
	o->m_to = go_member(b, RAFTPB "Message", "To");
	o->m_from = go_member(b, RAFTPB "Message", "From");
	o->m_term = go_member(b, RAFTPB "Message", "Term");
	o->m_logterm = go_member(b, RAFTPB "Message", "LogTerm");
	o->m_index = go_member(b, RAFTPB "Message", "Index");
	o->m_commit = go_member(b, RAFTPB "Message", "Commit");
	o->m_vote = go_member(b, RAFTPB "Message", "Vote");
	o->m_reject = go_member(b, RAFTPB "Message", "Reject");
	o->m_reject_hint = go_member(b, RAFTPB "Message", "RejectHint");
	o->m_entries = go_member(b, RAFTPB "Message", "Entries");
	o->m_snapshot = go_member(b, RAFTPB "Message", "Snapshot");
	o->rn_raft = go_member(b, RAFT "RawNode", "raft");
}

/*
 * Add read @slot to @s: from @src/@reg, through an optional @prefix hop
 * (RawNode.raft), then the hops given (-1 terminated).
 */
static void add(struct gp_site *s, int slot, int src, int reg, long prefix,
		int size, ...)
{
	struct gp_read *rd = &s->reads[slot];
	va_list ap;
	long off;

	memset(rd, 0, sizeof(*rd));
	rd->src = (unsigned char)src;
	rd->reg = (unsigned char)reg;
	rd->size = (unsigned char)size;
	if (prefix >= 0)
		rd->off[rd->nhops++] = (int)prefix;
	va_start(ap, size);
	while ((off = va_arg(ap, long)) >= 0)
		rd->off[rd->nhops++] = (int)off;
	va_end(ap);
	if ((unsigned)slot >= s->nreads)
		s->nreads = (unsigned)slot + 1;
}

/* The node state, from a *raft (or a *RawNode when @prefix >= 0). */
static void add_state(struct gp_site *s, const struct offsets *o, int src,
		      int reg, long prefix)
{
	long u = o->unstable;

	add(s, S_ID, src, reg, prefix, 8, o->id, -1L);
	add(s, S_TERM, src, reg, prefix, 8, o->term, -1L);
	add(s, S_VOTE, src, reg, prefix, 8, o->vote, -1L);
	add(s, S_COMMIT, src, reg, prefix, 8, o->raftlog, o->committed, -1L);
	add(s, S_ROLE, src, reg, prefix, 8, o->state, -1L);
	add(s, S_UNST_LEN, src, reg, prefix, 8, o->raftlog, u + o->u_entries + 8, -1L);
	add(s, S_UNST_OFF, src, reg, prefix, 8, o->raftlog, u + o->u_offset, -1L);
}

/* A *raftpb.Message: proto2 fields are pointers (nil reads as 0). */
static void add_msg(struct gp_site *s, const struct offsets *o, int src, int reg)
{
	add(s, M_TYPE, src, reg, -1, 4, o->m_type, 0L, -1L);
	add(s, M_TO, src, reg, -1, 8, o->m_to, 0L, -1L);
	add(s, M_FROM, src, reg, -1, 8, o->m_from, 0L, -1L);
	add(s, M_TERM, src, reg, -1, 8, o->m_term, 0L, -1L);
	add(s, M_LOGTERM, src, reg, -1, 8, o->m_logterm, 0L, -1L);
	add(s, M_INDEX, src, reg, -1, 8, o->m_index, 0L, -1L);
	add(s, M_COMMIT, src, reg, -1, 8, o->m_commit, 0L, -1L);
	add(s, M_VOTE, src, reg, -1, 8, o->m_vote, 0L, -1L);
	add(s, M_REJECT, src, reg, -1, 1, o->m_reject, 0L, -1L);
	add(s, M_REJECT_HINT, src, reg, -1, 8, o->m_reject_hint, 0L, -1L);
	add(s, M_ENTRIES, src, reg, -1, 8, o->m_entries + 8, -1L);
	add(s, M_SNAP_INDEX, src, reg, -1, 8, o->m_snapshot, o->snap_meta,
	    o->meta_index, 0L, -1L);
}

/* appendEntry(r, es ...*Entry): es is (RBX ptr, RCX len). */
static void add_append(struct gp_site *s, const struct offsets *o)
{
	add_state(s, o, GP_SRC_REG, GP_RAX, -1);
	add(s, A_LEN, GP_SRC_REG, GP_RCX, -1, 8, -1L);
	for (int i = 0; i < MAX_NEW_ENTRIES; i++)
		add(s, A_TYPE0 + i, GP_SRC_REG, GP_RBX, -1, 4, 8L * i, o->e_type,
		    0L, -1L);
}

/* Site descriptors shared by the probes. */
struct sites {
	struct gp_site recv_state, saved_state, ready, state_msg, append;
};

static const struct gp_site save_recv = { .nsaved = 1, .saved = { GP_RAX } };

/* One probed function: its entry and exit descriptors and handlers. */
struct probe {
	const char *name;
	size_t entry, exit;            /* offsetof in struct sites, or SAVE_* */
	enum handler in, out;
};
#define SAVE_RECV ((size_t)-1)
#define NO_EXIT ((size_t)-2)
#define SITE(f) offsetof(struct sites, f)

static const struct probe probes[] = {
	{ RAFT "newRaft", SAVE_RECV, SAVE_RECV, H_NEWRAFT_IN, H_NEWRAFT_OUT },
	{ RAFT "(*raft).switchToConfig", SITE(recv_state), NO_EXIT, H_CONF, H_NONE },
	{ RAFT "(*raft).becomeFollower", SAVE_RECV, SITE(saved_state), H_NONE, H_FOLLOWER },
	{ RAFT "(*raft).becomeCandidate", SAVE_RECV, SITE(saved_state), H_NONE, H_CANDIDATE },
	{ RAFT "(*raft).becomeLeader", SAVE_RECV, SAVE_RECV, H_LEADER_IN, H_LEADER_OUT },
	{ RAFT "(*raft).appendEntry", SITE(append), NO_EXIT, H_APPEND, H_NONE },
	{ RAFT "(*raft).maybeCommit", SAVE_RECV, SITE(saved_state), H_NONE, H_COMMIT },
	{ RAFT "(*raft).send", SITE(state_msg), NO_EXIT, H_SEND, H_NONE },
	{ RAFT "(*raft).Step", SITE(state_msg), NO_EXIT, H_RECEIVE, H_NONE },
	{ RAFT "(*RawNode).acceptReady", SITE(ready), NO_EXIT, H_READY, H_NONE },
};

static const struct gp_site *site_of(const struct sites *s, size_t which)
{
	if (which == SAVE_RECV)
		return &save_recv;
	if (which == NO_EXIT)
		return NULL;
	return (const struct gp_site *)((const char *)s + which);
}

static void build_sites(struct sites *s, const struct offsets *o)
{
	memset(s, 0, sizeof(*s));
	add_state(&s->recv_state, o, GP_SRC_REG, GP_RAX, -1);
	add_state(&s->saved_state, o, GP_SRC_SAVED, 0, -1);
	add_state(&s->ready, o, GP_SRC_REG, GP_RAX, o->rn_raft);
	add_state(&s->state_msg, o, GP_SRC_REG, GP_RAX, -1);
	add_msg(&s->state_msg, o, GP_SRC_REG, GP_RBX);
	add_append(&s->append, o);
}

struct etcd_trace *etcd_probes(struct gp_engine *e, FILE *out)
{
	struct etcd_trace *t = xcalloc(1, sizeof(*t));
	struct go_func f;
	struct offsets o;
	struct sites s;

	t->out = out;
	/* Functions first: probing the wrong binary names a missing function. */
	for (size_t i = 0; i < NELEM(probes); i++)
		go_func(gp_binary(e), probes[i].name, &f);
	resolve(gp_binary(e), &o);
	build_sites(&s, &o);
	for (size_t i = 0; i < NELEM(probes); i++) {
		const struct probe *p = &probes[i];
		unsigned id = gp_probe(e, p->name, site_of(&s, p->entry),
				       site_of(&s, p->exit));

		t->handler[id] = p->in;
		if (p->exit != NO_EXIT)
			t->handler[id + 1] = p->out;
	}
	return t;
}

static void fail(struct etcd_trace *t, const char *fmt, ...)
{
	va_list ap;

	if (t->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&t->error, fmt, ap) < 0)
		t->error = xstrdup(fmt);
	va_end(ap);
}

static const char *const roles[] = {
	"StateFollower", "StateCandidate", "StateLeader", "StatePreCandidate",
};

/* raftpb.MessageType names, in enum order (raftpb/raft.proto). */
static const char *const msg_types[] = {
	"MsgHup", "MsgBeat", "MsgProp", "MsgApp", "MsgAppResp", "MsgVote",
	"MsgVoteResp", "MsgSnap", "MsgHeartbeat", "MsgHeartbeatResp",
	"MsgUnreachable", "MsgSnapStatus", "MsgCheckQuorum",
	"MsgTransferLeader", "MsgTimeoutNow", "MsgReadIndex",
	"MsgReadIndexResp", "MsgPreVote", "MsgPreVoteResp",
	"MsgStorageAppend", "MsgStorageAppendResp", "MsgStorageApply",
	"MsgStorageApplyResp", "MsgForgetLeader",
};
enum { MSG_APP = 3, MSG_APP_RESP, MSG_VOTE, MSG_VOTE_RESP, MSG_SNAP,
       MSG_HEARTBEAT, MSG_HEARTBEAT_RESP };

#define NIL(r, slot) ((r)->nil_mask & (1u << (slot)))

/* Field value: a nil proto2 pointer reads as 0, as its getter. */
static unsigned long long mval(const struct gp_record *r, int slot)
{
	return NIL(r, slot) ? 0 : r->val[slot];
}

/*
 * raftLog.lastIndex(): the last unstable entry's index, else the unstable
 * snapshot's, else the storage's last index.  raft's log is the storage up
 * to unstable.offset - 1 followed by unstable.entries (raftLog.slice cuts
 * it there), and the offset is kept at the snapshot's index + 1 (restore)
 * and at the last stabilized index + 1 (stableTo, once the application
 * has written what Ready gave it), so all three are offset + len - 1.
 * Reading the storage instead would cost four dependent reads per record
 * (its entries, the first entry, its proto2 index) and tie the probe to
 * MemoryStorage; the --via trace path calls upstream's lastIndex(), and
 * make test compares the two paths' events.
 */
static int last_index(struct etcd_trace *t, const struct gp_record *r,
		      unsigned long long *li)
{
	if (NIL(r, S_UNST_LEN) || NIL(r, S_UNST_OFF)) {
		fail(t, "cannot read the raft log (nil mask %#x)", r->nil_mask);
		return -1;
	}
	*li = r->val[S_UNST_OFF] + r->val[S_UNST_LEN] - 1;
	return 0;
}

/*
 * An event line, built by hand: a capture writes one per probe hit, and
 * printf's format parsing was most of the consumer's time (~0.5 us a
 * line), which a busy machine takes from the probed target.
 */
struct line {
	char buf[1024];         /* an event is at most ~700 bytes */
	size_t n;
};

static void put_n(struct line *l, const char *s, size_t len)
{
	if (len > sizeof(l->buf) - l->n)
		len = sizeof(l->buf) - l->n;
	memcpy(l->buf + l->n, s, len);
	l->n += len;
}

static void put(struct line *l, const char *s)
{
	put_n(l, s, strlen(s));
}

/* A string literal, its length known at compile time. */
#define put_lit(l, s) put_n(l, s, sizeof(s) - 1)

static void put_u64(struct line *l, unsigned long long v)
{
	char digits[20], *p = digits + sizeof(digits);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put_n(l, p, (size_t)(digits + sizeof(digits) - p));
}

/* "key":v and "key":"v" (ids are strings in upstream's events). */
#define put_num(l, key, v) (put_lit(l, key), put_u64(l, v))
#define put_id(l, key, v) (put_lit(l, key "\""), put_u64(l, v), put_lit(l, "\""))

/* Which message an event carries: none, one received, one being sent. */
enum msg_of { NO_MSG, MSG_IN, MSG_OUT };

/*
 * A message being sent is read at send's entry: send then sets From (if
 * unset) to the node's id and Term (if unset: only votes and their
 * responses come with theirs) to the node's term, as done here.
 */
static void write_msg(struct etcd_trace *t, struct line *l,
		      const struct gp_record *r, enum msg_of which)
{
	unsigned long long type = mval(r, M_TYPE), idx = mval(r, M_INDEX),
			   logterm = mval(r, M_LOGTERM), ents = mval(r, M_ENTRIES),
			   term = mval(r, M_TERM), from = mval(r, M_FROM);

	if (which == MSG_OUT && !term)
		term = r->val[S_TERM];
	if (which == MSG_OUT && !from)
		from = r->val[S_ID];

	if (type >= NELEM(msg_types)) {
		fail(t, "unknown raft message type %llu", type);
		return;
	}
	if (type == MSG_SNAP) {     /* as upstream's makeTracingMessage */
		idx = logterm = 0;
		ents = mval(r, M_SNAP_INDEX);
	}
	put_lit(l, ",\"msg\":{\"type\":\"");
	put(l, msg_types[type]);
	put_num(l, "\",\"term\":", term);
	put_id(l, ",\"from\":", from);
	put_id(l, ",\"to\":", mval(r, M_TO));
	put_num(l, ",\"entries\":", ents);
	put_num(l, ",\"logTerm\":", logterm);
	put_num(l, ",\"index\":", idx);
	put_num(l, ",\"commit\":", mval(r, M_COMMIT));
	put_id(l, ",\"vote\":", mval(r, M_VOTE));
	if (mval(r, M_REJECT) & 0xff)
		put_lit(l, ",\"reject\":true");
	else
		put_lit(l, ",\"reject\":false");
	put_num(l, ",\"rejectHint\":", mval(r, M_REJECT_HINT));
	put_lit(l, "}");
}

/* One event in upstream's TracingEvent JSON (without conf and prop). */
static void write_event(struct etcd_trace *t, const char *name,
			const struct gp_record *r, enum msg_of with_msg)
{
	const unsigned long long *v = r->val;
	unsigned long long li;
	struct line l = { .n = 0 };

	if (last_index(t, r, &li))
		return;
	if (v[S_ROLE] >= NELEM(roles)) {
		fail(t, "unknown raft role %llu", v[S_ROLE]);
		return;
	}
	put_lit(&l, "{\"name\":\"");
	put(&l, name);
	put_id(&l, "\",\"nid\":", v[S_ID]);
	put_num(&l, ",\"state\":{\"term\":", v[S_TERM]);
	put_id(&l, ",\"vote\":", v[S_VOTE]);
	put_num(&l, ",\"commit\":", v[S_COMMIT]);
	put_lit(&l, "},\"role\":\"");
	put(&l, roles[v[S_ROLE]]);
	put_num(&l, "\",\"log\":", li);
	if (with_msg != NO_MSG)
		write_msg(t, &l, r, with_msg);
	put_lit(&l, "}\n");
	fwrite(l.buf, 1, l.n, t->out);
	t->events++;
}

/* upstream's traceSendMessage / traceReceiveMessage event names. */
static const char *msg_event(unsigned long long type, int send)
{
	switch (type) {
	case MSG_APP: case MSG_HEARTBEAT: case MSG_SNAP:
		return send ? "SendAppendEntriesRequest" : "ReceiveAppendEntriesRequest";
	case MSG_APP_RESP: case MSG_HEARTBEAT_RESP:
		return send ? "SendAppendEntriesResponse" : "ReceiveAppendEntriesResponse";
	case MSG_VOTE:
		return send ? "SendRequestVoteRequest" : "ReceiveRequestVoteRequest";
	case MSG_VOTE_RESP:
		return send ? "SendRequestVoteResponse" : "ReceiveRequestVoteResponse";
	}
	return NULL;
}

static struct proc_open *proc_open(struct etcd_trace *t, unsigned int pid)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	t->procs = xrealloc(t->procs, (t->nprocs + 1) * sizeof(*t->procs));
	t->procs[t->nprocs] = (struct proc_open){ .pid = pid };
	return &t->procs[t->nprocs++];
}

static void on_append(struct etcd_trace *t, const struct gp_record *r,
		      struct proc_open *p)
{
	unsigned long long n = r->val[A_LEN];

	if (p->leader_pending) {
		p->leader_pending = 0;
		write_event(t, "BecomeLeader", r, NO_MSG);
	}
	if (n > MAX_NEW_ENTRIES) {
		fail(t, "appendEntry with %llu entries (at most %d are read)",
		     n, MAX_NEW_ENTRIES);
		return;
	}
	for (unsigned i = 0; i < n; i++)   /* EntryNormal is 0 (nil reads as 0) */
		if (NIL(r, A_TYPE0 + i) || !r->val[A_TYPE0 + i])
			write_event(t, "Replicate", r, NO_MSG);
}

static void on_message(struct etcd_trace *t, const struct gp_record *r, int send)
{
	const char *name = msg_event(mval(r, M_TYPE), send);

	if (name)
		write_event(t, name, r, send ? MSG_OUT : MSG_IN);
}

void etcd_record(const struct gp_record *r, void *arg)
{
	struct etcd_trace *t = arg;
	struct proc_open *p;

	if (t->error || r->site >= GP_MAX_SITES)
		return;
	p = proc_open(t, r->pid);
	switch (t->handler[r->site]) {
	case H_NONE:
		break;
	case H_NEWRAFT_IN:
		p->newraft_depth++;
		break;
	case H_NEWRAFT_OUT:
		p->newraft_depth--;
		break;
	case H_CONF:
		if (p->newraft_depth > 0)
			write_event(t, "InitState", r, NO_MSG);
		write_event(t, "ApplyConfChange", r, NO_MSG);
		break;
	case H_FOLLOWER:
		write_event(t, "BecomeFollower", r, NO_MSG);
		break;
	case H_CANDIDATE:
		write_event(t, "BecomeCandidate", r, NO_MSG);
		break;
	case H_LEADER_IN:
		p->leader_pending = 1;
		break;
	case H_LEADER_OUT:
		if (p->leader_pending)
			fail(t, "becomeLeader returned without appending its empty entry");
		break;
	case H_APPEND:
		on_append(t, r, p);
		break;
	case H_COMMIT:
		write_event(t, "Commit", r, NO_MSG);
		break;
	case H_SEND:
		on_message(t, r, 1);
		break;
	case H_RECEIVE:
		on_message(t, r, 0);
		break;
	case H_READY:
		write_event(t, "Ready", r, NO_MSG);
		break;
	}
}

long etcd_trace_end(struct etcd_trace *t)
{
	long n = t->events;

	if (t->error)
		die(EXIT_CAPTURE_FAILED, "raft probes: %s", t->error);
	free(t->procs);
	free(t);
	return n;
}
