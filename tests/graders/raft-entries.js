// SPDX-License-Identifier: MIT
// Reference grader for etcd-entries, etcd's projection with each log as
// its entries' terms (logTerms, null where no event shows one; an append's
// data carries entryTerms): raft-next.js's rules on the lengths, and on
// the terms Raft's (figure 2 and 3): a log's terms never decrease nor
// exceed its node's term, two logs with an entry of the same index and
// term agree on every entry before it (Log Matching), a leader only
// appends entries of its term, and an append keeps its previous entries,
// cuts at the first entry that conflicts with the message's and appends
// the rest, or changes nothing.  An unknown term matches any.
'use strict';

const next = require('./raft-next.js');

const known = (t) => t !== null && t !== undefined;
const same = (a, b) => !known(a) || !known(b) || a === b;

// Each log is as long as log says; its terms rise, up to its node's term.
function shape(id, n) {
	let top = 0;

	if (!Array.isArray(n.logTerms) || n.logTerms.length !== n.log)
		return `node ${id}: logTerms is not ${n.log} terms long`;
	for (const [i, t] of n.logTerms.entries()) {
		if (!known(t))
			continue;
		if (t < top || t > n.term)
			return `node ${id}: entry ${i + 1} of term ${t} after term ${top}, in term ${n.term}`;
		top = t;
	}
	return null;
}

// Log Matching between node @id's log and every other node's.
function matching(nodes, id) {
	const a = nodes[id].logTerms;

	for (const [other, n] of Object.entries(nodes)) {
		const b = n.logTerms;
		let agree = false;

		for (let i = Math.min(a.length, b.length) - 1; i >= 0; i--) {
			if (agree && !same(a[i], b[i]))
				return `nodes ${id} and ${other} share entry ${i + 2}'s term but not entry ${i + 1}'s`;
			agree = agree || (known(a[i]) && a[i] === b[i]);
		}
	}
	return null;
}

// @q's terms are @want's, an unknown matching any.
function terms(q, want, what) {
	if (q.length !== want.length)
		return `${what}: ${want.length} entries expected, got ${q.length}`;
	for (let i = 0; i < q.length; i++)
		if (!same(q[i], want[i]))
			return `${what}: entry ${i + 1} has term ${q[i]}, expected ${want[i]}`;
	return null;
}

// The logs an accepted append may leave: no conflict, the tail kept; a
// conflict, cut after the message's last entry (both if unknown terms
// leave it open).
function appendResults(p, d) {
	const ents = d.entryTerms, last = d.index + ents.length;
	let conflict = false, open = false;

	for (let k = 0; k < ents.length && d.index + k < p.log; k++) {
		const t = p.logTerms[d.index + k];

		if (!known(t) || !known(ents[k]))
			open = true;
		else if (t !== ents[k])
			conflict = true;
	}
	const kept = p.logTerms.slice(0, d.index).concat(ents,
		p.logTerms.slice(last));
	const cut = p.logTerms.slice(0, d.index).concat(ents);
	return conflict ? [cut] : open ? [kept, cut] : [kept];
}

function handleAppend(p, q, d) {
	const prev = d.index === 0 ? 0 : p.logTerms[d.index - 1];

	if (!Array.isArray(d.entryTerms) || d.entryTerms.length !== d.entries)
		return `entryTerms is not ${d.entries} terms long`;
	if (!terms(q.logTerms, p.logTerms, ''))
		return null;   // rejected, ignored, or nothing new
	if (d.term < p.term || d.index < p.commit || d.index > p.log)
		return `a stale, below-commit or gapped append changed the log's terms`;
	if (known(prev) && prev !== d.logTerm)
		return `entry ${d.index} has term ${prev}, not the append's ${d.logTerm}: it must be rejected`;
	const results = appendResults(p, d);
	if (results.some((r) => !terms(q.logTerms, r, '')))
		return null;
	return terms(q.logTerms, results[results.length - 1],
		`append at ${d.index} of terms ${JSON.stringify(d.entryTerms)}`);
}

// A leader appends entries of its term (a proposal's, a new leader's
// empty entry); no other step changes a log.
function grows(p, q) {
	const add = Array(Math.max(q.log - p.log, 0)).fill(q.term);

	return terms(q.logTerms, p.logTerms.concat(add), 'the leader appends entries of its term');
}

const rules = {
	HandleAppendEntries: handleAppend,
	ClientProposal: (p, q) => (p.role === 'leader' ? grows(p, q) : null),
	BecomeLeader: grows,
};

function judge(w) {
	const why = next.judge(w);
	const { action, data, pre_state: pre, post_state: post } = w;
	const p = pre.nodes[data.node], q = post.nodes[data.node];
	const rule = rules[action] ||
		((a, b) => terms(b.logTerms, a.logTerms, `${action} keeps the log`));

	if (why !== null)
		return why;
	for (const [id, n] of Object.entries(post.nodes)) {
		const bad = shape(id, n);
		if (bad)
			return bad;
	}
	return rule(p, q, data) || matching(post.nodes, data.node);
}

const verdict = next.verdictOf(judge);

module.exports = { judge, verdict };
if (require.main === module)
	require('./protocol.js').serve(verdict);
