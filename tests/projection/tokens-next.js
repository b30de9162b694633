// SPDX-License-Identifier: MIT
// A next() for tests/projection/tokens.probes, written from the pools'
// documentation (tests/projection/tokens/src/main.rs): take gives the
// worker a token if one is free and it holds none, give_back returns the
// worker's token; otherwise each changes nothing and says false.  Every
// take counts.  A window is a step of one pool (data.pool): the other
// keeps its state; a pool that enters has taken nothing yet.
'use strict';

function eq(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}

function next(s, action, d) {
	const bit = 1 << d.who, held = (s.holders & bit) !== 0;

	if (action === 'Take')
		return s.free > 0 && !held ?
			{ state: { free: s.free - 1, holders: s.holders | bit, taken: s.taken + 1 }, ok: true } :
			{ state: s, ok: false };
	if (action === 'GiveBack')
		return held ? { state: { free: s.free + 1, holders: s.holders & ~bit, taken: s.taken }, ok: true } :
			{ state: s, ok: false };
	return null;
}

function judge(step, w) {
	const id = String(w.data.pool), pre = w.pre_state.pools, post = w.post_state.pools;

	for (const k of new Set([...Object.keys(pre), ...Object.keys(post)]))
		if (k !== id && !eq(pre[k], post[k]))
			return `pool ${k} changed in a step of pool ${id}`;
	if (w.action === 'UntracedChange')
		return !pre[id] && post[id].holders === 0 && post[id].taken === 0 ? null :
			`pool ${id} changed untraced`;
	const want = step(pre[id], w.action, w.data);
	if (!want)
		return `no action ${w.action} in the pool`;
	if (want.ok !== w.data.ok)
		return `${w.action} by ${w.data.who} says ${w.data.ok}, expected ${want.ok}`;
	return eq(want.state, post[id]) ? null :
		`${w.action} by ${w.data.who} gives ${JSON.stringify(want.state)}`;
}

function verdictWith(step) {
	return (w) => {
		const why = judge(step, w);

		return why ? { ok: false, why } : { ok: true };
	};
}

module.exports = { next, verdictWith };
if (require.main === module)
	require('../graders/protocol.js').serve(verdictWith(next));
