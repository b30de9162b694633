// SPDX-License-Identifier: MIT
// A next() for tests/projection/ring.probes, written from the ring's
// documentation (tests/projection/ring.c): ring_put puts its value at the
// tail unless the ring holds 4 (then nothing changes, 0), ring_get takes
// the value at the head unless it is empty (then nothing changes, 0 and
// a value 0); value i put is in slot i mod 4.
'use strict';

function eq(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}

// The ring after @action with @d (value, ok) from @s, or why not.
function next(s, action, d) {
	const t = JSON.parse(JSON.stringify(s));

	if (action === 'Put') {
		if (s.count === 4)
			return d.ok === 0 ? t : 'a full ring refuses a put';
		t.slots['s' + (s.tail % 4)] = d.value;
		t.tail = (s.tail + 1) % 256;
	} else if (action === 'Get') {
		if (s.count === 0)
			return d.ok === 0 && d.value === 0 ? t : 'an empty ring gives 0 and nothing';
		if (d.value !== s.slots['s' + (s.head % 4)])
			return `got ${d.value}, the head holds ${s.slots['s' + (s.head % 4)]}`;
		t.head = (s.head + 1) % 256;
	} else {
		return `no action ${action} in the ring`;
	}
	if (d.ok !== 1)
		return `${action} succeeded, it says ${d.ok}`;
	t.count = (t.tail - t.head + 256) % 256;
	return t;
}

function verdictWith(step) {
	return (w) => {
		const want = step(w.pre_state, w.action, w.data);

		if (typeof want === 'string')
			return { ok: false, why: want };
		return eq(want, w.post_state) ? { ok: true } :
			{ ok: false, why: `${w.action} gives ${JSON.stringify(want)}` };
	};
}

module.exports = { next, verdictWith };
if (require.main === module)
	require('../graders/protocol.js').serve(verdictWith(next));
