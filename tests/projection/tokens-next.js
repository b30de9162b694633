// SPDX-License-Identifier: MIT
// A next() for tests/projection/tokens.probes, written from the pool's
// documentation (tests/projection/tokens/src/main.rs): take gives the
// worker a token if one is free and it holds none, give_back returns the
// worker's token; otherwise each changes nothing and says false.  Every
// take counts.
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

function verdictWith(step) {
	return (w) => {
		const want = step(w.pre_state, w.action, w.data);

		if (!want)
			return { ok: false, why: `no action ${w.action} in the pool` };
		if (want.ok !== w.data.ok)
			return { ok: false, why: `${w.action} by ${w.data.who} says ${w.data.ok}, expected ${want.ok}` };
		return eq(want.state, w.post_state) ? { ok: true } :
			{ ok: false, why: `${w.action} by ${w.data.who} gives ${JSON.stringify(want.state)}` };
	};
}

module.exports = { next, verdictWith };
if (require.main === module)
	require('../graders/protocol.js').serve(verdictWith(next));
