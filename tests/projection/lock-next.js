// SPDX-License-Identifier: MIT
// A next() for tests/projection/lock.probes, written from what a lock
// promises: Lock takes a free lock (it waits while another holds it),
// Unlock frees the holder's lock, TryLock takes a free lock or changes
// nothing.  A window is a step of one lock (data.lock): the others keep
// their state.  An Overlapped window is the joint change of calls that
// overlapped: some order of them, each waiting while it must, reaches its
// post-state.  An untraced change is no step of the lock: unscoreable.
'use strict';

const FREE = { held: false, holder: 0 };

function eq(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}

// The lock after @action by @thread, or null where it must wait (or
// cannot happen).
function next(s, action, thread) {
	switch (action) {
	case 'Lock':
	case 'TryLockOk':
		return s.held ? null : { held: true, holder: thread };
	case 'TryLockFail':
		return s.held ? s : null;
	case 'Unlock':
		return s.held && s.holder === thread ? FREE : null;
	}
	return null;
}

// Can the calls, in some order, take @s to @post by @step?
function someOrder(step, s, calls, post) {
	if (!calls.length)
		return eq(s, post);
	return calls.some((c, i) => {
		const t = step(s, c.action, c.data.thread);

		return t && someOrder(step, t, calls.filter((_, j) => j !== i), post);
	});
}

// Why window @w is no step by @step, null if it is one, undefined if it
// is no step of the lock at all.
function judge(w, step) {
	const { action, data, pre_state: pre, post_state: post } = w;
	const id = String(data.lock);

	if (action === 'UntracedChange')
		return undefined;
	for (const k of new Set([...Object.keys(pre.locks), ...Object.keys(post.locks)]))
		if (k !== id && !eq(pre.locks[k], post.locks[k]))
			return `lock ${k} changed in a step of lock ${id}`;
	if (action === 'Overlapped')
		return someOrder(step, pre.locks[id], data.calls, post.locks[id]) ? null :
			'no order of the overlapping calls reaches the post-state';
	const want = step(pre.locks[id], action, data.thread);
	if (!want)
		return `${action} by ${data.thread} cannot step from ${JSON.stringify(pre.locks[id])}`;
	return eq(want, post.locks[id]) ? null :
		`${action} by ${data.thread} gives ${JSON.stringify(want)}, not ${JSON.stringify(post.locks[id])}`;
}

// The protocol's verdict of a window, judged by @step.
function verdictWith(step) {
	return (w) => {
		const why = judge(w, step);

		if (why === undefined)
			return { unscoreable: `${w.action}: no step of the lock` };
		return why ? { ok: false, why } : { ok: true };
	};
}

module.exports = { next, verdictWith };
if (require.main === module)
	require('../graders/protocol.js').serve(verdictWith(next));
