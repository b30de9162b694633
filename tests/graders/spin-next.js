// SPDX-License-Identifier: MIT
// Reference grader for spin windows (positive control for `capture grade`):
// a bare next(state, action, data) for the spinlock, and the line protocol
// around it -- one window a line on stdin, one verdict a line on stdout.
'use strict';

// The successor of @state under @action with @data, or null if the action
// is not enabled there.  State: {lockHeld, lockHolder}.
function next(state, action, data) {
	const free = { lockHeld: false, lockHolder: null };
	const held = { lockHeld: true, lockHolder: data.thread };

	if (action === 'AcquireLock') {
		if (!state.lockHeld)
			return held;
		// A failed try, or a lock() starting to spin on a lock
		// another thread holds, leaves the state as it was; a lock()
		// by the holder never returns (no window).
		return data.callType === 'try' || state.lockHolder !== data.thread
			? state : null;
	}
	if (action === 'ReleaseLock')
		return state.lockHeld && state.lockHolder === data.thread ? free : null;
	return undefined;
}

function same(a, b) {
	return a.lockHeld === b.lockHeld && a.lockHolder === b.lockHolder;
}

function verdict(next, w) {
	const want = next(w.pre_state, w.action, w.data);

	if (want === undefined)
		return { unscoreable: `unknown action ${w.action}` };
	if (want === null)
		return { ok: false, why: `${w.action} is not enabled in ${JSON.stringify(w.pre_state)}` };
	if (!same(want, w.post_state))
		return { ok: false, why: `expected ${JSON.stringify(want)}` };
	return { ok: true };
}

// Answer every window line with a verdict line, in order.
function serve(next) {
	require('./protocol.js').serve((w) => verdict(next, w));
}

module.exports = { next, serve };
if (require.main === module)
	serve(next);
