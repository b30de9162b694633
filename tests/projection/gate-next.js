// SPDX-License-Identifier: MIT
// A next() for tests/projection/gate.probes, written from the gate's
// documentation (tests/projection/gate/main.go): Enter takes a free gate
// (it waits while another holds it), TryEnter takes it if it is free and
// says so, Leave frees its holder's gate, EnterAfter counts itself
// waiting, waits, then takes the gate and is waiting no more.  An
// Overlapped window is the joint change of calls that overlapped: some
// order of them, each a step, reaches its post-state.
'use strict';

function eq(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}

const taken = (s, who) => ({ held: true, holder: who, waiting: s.waiting });

// The gate after @action (with its data @d) from @s; null: no such step.
function next(s, action, d) {
	switch (action) {
	case 'Enter':
	case 'EnterAfter':
		return s.held ? null : taken(s, d.who);
	case 'TryEnter':
		if (d.ok !== undefined && d.ok !== !s.held)
			return null;
		return s.held ? s : taken(s, d.who);
	case 'Leave':
		return s.held && s.holder === d.who ? { held: false, holder: 0, waiting: s.waiting } : null;
	}
	return null;
}

function someOrder(step, s, calls, post) {
	if (!calls.length)
		return eq(s, post);
	return calls.some((c, i) => {
		const t = step(s, c.action, c.data);

		return t && someOrder(step, t, calls.filter((_, j) => j !== i), post);
	});
}

function verdictWith(step) {
	return (w) => {
		const { action, data, pre_state: pre, post_state: post } = w;
		let why = null;

		if (action === 'Overlapped') {
			if (!someOrder(step, pre, data.calls, post))
				why = 'no order of the overlapping calls reaches the post-state';
		} else {
			const want = step(pre, action, data);

			if (!want)
				why = `${action} by ${data.who} cannot step from ${JSON.stringify(pre)}`;
			else if (!eq(want, post))
				why = `${action} by ${data.who} gives ${JSON.stringify(want)}, not ${JSON.stringify(post)}`;
		}
		return why ? { ok: false, why } : { ok: true };
	};
}

module.exports = { next, verdictWith };
if (require.main === module)
	require('../graders/protocol.js').serve(verdictWith(next));
