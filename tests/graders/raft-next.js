// SPDX-License-Identifier: MIT
// Reference grader for the etcd projection {nodes: {id: {role, term, vote,
// commit, log}}}, written from Raft's rules (Ongaro & Ousterhout, "In
// Search of an Understandable Consensus Algorithm", figure 2 and section
// 5; pre-vote and the leader lease from Ongaro's thesis, 9.6 and 4.2.3),
// not from any implementation: it grades etcd's windows and raftkvs's alike.  A window is a step of one
// node (data.node): the others must not change.  Where Raft allows several
// outcomes and the projection cannot tell which one applies (a log-term
// mismatch, the log-up-to-date test of a vote), every allowed outcome
// passes.
'use strict';

const NONE = '0';   // the projection's vote for nobody

function eq(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}

// What a slice must equal besides the fields an action may change.
function unchanged(p, q, fields) {
	for (const f of fields)
		if (!eq(p[f], q[f]))
			return `${f} changed from ${JSON.stringify(p[f])} to ${JSON.stringify(q[f])}`;
	return null;
}

// "If RPC request or response contains term T > currentTerm: set
// currentTerm = T, convert to follower" (figure 2, all servers); a node
// that moves to a new term has voted for nobody in it yet.
function termRule(p, q, t) {
	if (t > p.term) {
		if (q.term !== t)
			return `a message of term ${t} must raise term ${p.term} to ${t}, got ${q.term}`;
		if (q.role !== 'follower')
			return `a message of a newer term must make a ${p.role} a follower, got ${q.role}`;
		return null;
	}
	return q.term === p.term ? null : `term must stay ${p.term}, got ${q.term}`;
}

// The vote before the handler's own decision: reset by a newer term.
function baseVote(p, t) {
	return t > p.term ? NONE : p.vote;
}

function electionTimeout(p, q, node) {
	if (p.role === 'leader')
		return 'a leader has no election timeout';
	if (q.role === 'precandidate')   // pre-vote: nothing else changes yet
		return unchanged(p, q, ['term', 'vote', 'commit', 'log']);
	if (q.role !== 'candidate' || q.term !== p.term + 1 || q.vote !== node)
		return `expected candidate, term ${p.term + 1}, vote ${node}`;
	return unchanged(p, q, ['commit', 'log']);
}

function handleVoteRequest(p, q, d) {
	const why = termRule(p, q, d.term) || unchanged(p, q, ['commit', 'log']);
	const base = baseVote(p, d.term);

	// "If a server receives a RequestVote request within the minimum
	// election timeout of hearing from a current leader, it does not
	// update its term or grant its vote" (thesis, 4.2.3; etcd under
	// CheckQuorum): the projection does not show when it last heard one.
	if (d.term > p.term && eq(p, q))
		return null;
	if (why)
		return why;
	if (d.term > p.term || q.role === p.role) {
		if (q.vote === base)
			return null;   // rejected (or granted before, to the same)
		if (q.vote !== d.from)
			return `vote may only go to the candidate ${d.from}, got ${q.vote}`;
		if (d.term < q.term)
			return `vote granted to a request of stale term ${d.term}`;
		if (base !== NONE)
			return `vote granted to ${d.from} after voting for ${base} in term ${q.term}`;
		return null;
	}
	return `role must stay ${p.role}, got ${q.role}`;
}

// A follower's side of AppendEntries (figure 2, receiver implementation).
function handleAppend(p, q, d) {
	const last = d.index + d.entries;
	const accepts = [
		{ log: Math.max(p.log, last), commit: Math.max(p.commit, Math.min(d.commit, last)) },
		// "If an existing entry conflicts with a new one ... delete the
		// existing entry and all that follow it"
		{ log: last, commit: Math.max(p.commit, Math.min(d.commit, last)) },
	];

	if (d.term < p.term)
		return eq(p, q) ? null : 'a request of a stale term must change nothing';
	return follows(p, q, d) || (
		// rejected: the log lacks index, or its term there differs
		(q.log === p.log && q.commit === p.commit) ||
		(d.index <= p.log && accepts.some((a) => a.log === q.log && a.commit === q.commit))
			? null
			: `log ${p.log}->${q.log}, commit ${p.commit}->${q.commit} for prevLogIndex ${d.index} + ${d.entries} entries, leader commit ${d.commit}`);
}

// The node hears from the leader of d.term (>= its term): it follows it.
function follows(p, q, d) {
	const why = termRule(p, q, d.term);

	if (why)
		return why;
	if (p.role === 'leader' && d.term === p.term)
		return `two leaders in term ${d.term}`;
	if (q.role !== 'follower')
		return `a node that hears from the leader of its term is a follower, got ${q.role}`;
	return q.vote === baseVote(p, d.term) ? null : `vote changed to ${q.vote}`;
}

// A window that took in a configuration switch the application made
// (d.conf: the voters switched to) may show a leader's commit by its new
// quorum (etcd's switchToConfig commits, raft.go:2014), which the window
// cannot count.
function switched(p, q, d) {
	return d.conf !== undefined && p.role === 'leader' &&
		eq({ ...p, commit: q.commit }, q);
}

// etcd's heartbeat: AppendEntries without entries, commit only.
function handleHeartbeat(p, q, d) {
	if (d.term < p.term)
		return eq(p, q) || switched(p, q, d) ? null
			: 'a heartbeat of a stale term must change nothing';
	return follows(p, q, d) || unchanged(p, q, ['log']) ||
		(q.commit === Math.max(p.commit, Math.min(d.commit, p.log)) ? null
			: `commit must become ${Math.max(p.commit, Math.min(d.commit, p.log))}, got ${q.commit}`);
}

// A leader appends a proposal, or, where the window says raft dropped it
// (d.dropped: flow control, etcd's leader past its
// MaxUncommittedEntriesSize, raft.go:822, which the projection does not
// show), changes nothing; a spec that drops proposals at will fails.
function clientProposal(p, q, d) {
	if (p.role !== 'leader')
		return eq(p, q) ? null : 'only a leader appends a proposal';
	if (d.dropped)
		return eq(p, q) ? null : 'a dropped proposal must change nothing';
	return unchanged(p, q, ['role', 'term', 'vote', 'commit']) ||
		(q.log > p.log ? null : `the leader's log must grow, got ${p.log}->${q.log}` +
			(eq(p, q) ? ' (a proposal changes nothing only where the window says raft dropped it)' : ''));
}

function becomeLeader(p, q) {
	if (p.role !== 'candidate' || q.role !== 'leader')
		return `a candidate becomes leader, got ${p.role}->${q.role}`;
	// A new leader may append a no-op entry of its term (section 8).
	return unchanged(p, q, ['term', 'vote', 'commit']) ||
		(q.log === p.log || q.log === p.log + 1 ? null : `log ${p.log}->${q.log}`);
}

function becomeFollower(p, q) {
	if (q.role !== 'follower' || q.term < p.term)
		return `expected a follower of term >= ${p.term}, got ${q.role} of ${q.term}`;
	return unchanged(p, q, ['commit', 'log']) ||
		(q.vote === baseVote(p, q.term) ? null : `vote must be ${baseVote(p, q.term)}, got ${q.vote}`);
}

// A leader commits entries stored on a majority (section 5.3, 5.4.2).
function commit(p, q) {
	if (p.role !== 'leader')
		return `only a leader advances its commit by counting replicas, not a ${p.role}`;
	return unchanged(p, q, ['role', 'term', 'vote', 'log']) ||
		(q.commit > p.commit ? null : `commit must rise, got ${p.commit}->${q.commit}`);
}

const rules = {
	ElectionTimeout: (p, q, d) => electionTimeout(p, q, d.node),
	HandleVoteRequest: handleVoteRequest,
	HandleAppendEntries: handleAppend,
	HandleHeartbeat: handleHeartbeat,
	ClientProposal: clientProposal,
	BecomeLeader: becomeLeader,
	BecomeFollower: becomeFollower,
	Commit: commit,
};
// Steps of clients (raftkvs): the projection shows servers only.
const clientSteps = new Set(['ClientRequest', 'ClientReply', 'ClientTimeout']);

function leadersOk(nodes) {
	const byTerm = {};

	for (const [id, n] of Object.entries(nodes)) {
		if (n.role !== 'leader')
			continue;
		if (byTerm[n.term])
			return `nodes ${byTerm[n.term]} and ${id} both lead term ${n.term}`;
		byTerm[n.term] = id;
	}
	return null;
}

// Every node but @node keeps its slice, and no node comes or goes.
function othersUnchanged(pre, post, node) {
	const ids = Object.keys(pre.nodes);

	if (!eq(ids, Object.keys(post.nodes)))
		return `nodes ${ids} became ${Object.keys(post.nodes)}`;
	for (const id of ids)
		if (id !== node && !eq(pre.nodes[id], post.nodes[id]))
			return `node ${id} changed in a step of node ${node}`;
	return null;
}

function judge(w) {
	const { action, data, pre_state: pre, post_state: post } = w;
	const rule = rules[action];
	let p, q;

	if (clientSteps.has(action))
		return eq(pre, post) ? null : 'a client step changed a server';
	if (!rule)
		return undefined;
	if (!(p = pre.nodes[data.node]) || !(q = post.nodes[data.node]))
		return `node ${data.node} is not in the state`;
	return othersUnchanged(pre, post, data.node) || rule(p, q, data) ||
		(q.commit > q.log ? `commit ${q.commit} beyond log ${q.log}` : null) ||
		(q.commit < p.commit ? `commit went back ${p.commit}->${q.commit}` : null) ||
		leadersOk(post.nodes);
}

// The protocol's verdict of a window by @judgeOf (undefined: no Raft step).
function verdictOf(judgeOf) {
	return (w) => {
		const why = judgeOf(w);

		if (why === undefined)
			return { unscoreable: `${w.action} is no Raft step (membership, bootstrap)` };
		return why ? { ok: false, why } : { ok: true };
	};
}

const verdict = verdictOf(judge);

module.exports = { judge, verdict, verdictOf };
if (require.main === module)
	require('./protocol.js').serve(verdict);
