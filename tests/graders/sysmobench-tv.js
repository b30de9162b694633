// SPDX-License-Identifier: MIT
// capture grade's adapter to SysMoBench's own validator (tv.mjs) and its
// reference transition functions (../shared/reference/sysmobench-graders):
//
//   capture grade --exec 'node tests/graders/sysmobench-tv.js TV SPEC [--view V]
//                         [--actions A,B,...]' INPUT...
//
// Each window capture sends is put in the benchmark's window shape
// {action, data, preState, postState} -- as it is, or through VIEW, a
// projection onto the reference's state (spin-task -> spin, etcd-task ->
// etcd below) -- and
// judged by tv.mjs itself: its code, pinned by sha256, is evaluated in this
// process for each window (its two imports bound to node's own, its
// import.meta.url its own path), so that a window costs no node start
// (200 ms each here).  Its verdict is the answer: pass, or fail with what
// the spec returned; a window VIEW cannot map, or of an action outside
// --actions (the spec's target actions, where it models only some), is
// unscoreable.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');
const { serve } = require('./protocol');

// tv.mjs @ 6a1a16e07ce5 (sysmobench-graders/README.md)
const TV_SHA256 = '4d5628840bcd';

function load_tv(file) {
	const src = fs.readFileSync(file, 'utf8');
	const sha = crypto.createHash('sha256').update(src).digest('hex');
	if (!sha.startsWith(TV_SHA256)) {
		console.error(`${file}: sha256 ${sha.slice(0, 12)}, not tv.mjs ${TV_SHA256}`);
		process.exit(2);
	}
	const body = src.replace(/^import .*$/gm, '').replace(/import\.meta\.url/g, '__url');
	const fn = vm.runInThisContext(
		`(function (readFileSync, createRequire, console, process, __url) {${body}\n})`,
		{ filename: file });
	const url = pathToFileURL(file).href;
	const exit = {};
	// One request {specPath, windows}: tv.mjs's own answer.
	return (req) => {
		let out;
		const io = { log: (s) => { out = s; } };
		const proc = { exit: () => { throw exit; } };
		try {
			fn(() => JSON.stringify(req), createRequire, io, proc, url);
		} catch (e) {
			if (e !== exit)
				throw e;
		}
		return JSON.parse(out);
	};
}

// spin-task's {lockState, pc} seen as spin's {lockHeld, lockHolder}: the
// holder is the one thread whose pc is locked, if the lock is; a state
// with none or two is not a state of the reference's (null).
function spin_state(st) {
	const held = st.lockState === 'locked';
	const holders = Object.keys(st.pc).filter((t) => st.pc[t] === 'locked');
	if (held && holders.length !== 1)
		return null;
	return { lockHeld: held, lockHolder: held ? Number(holders[0]) : null };
}

// The post-state the reference names: the lock taken is the acquirer's
// (the last to take it holds it, whoever else's pc says locked); else as
// before the step, or free.
function spin_post(w, pre) {
	if (w.action === 'AcquireSuccess')
		return { lockHeld: true, lockHolder: w.data.thread };
	const held = w.post_state.lockState === 'locked';
	return { lockHeld: held, lockHolder: held ? pre.lockHolder : null };
}

// Is the actor's own call what the window is about?  A call's beginning
// (a try, a release) while the thread is inside lock() or try_lock(), or
// a call's return (AcquireSuccess, AcquireFail) while it is inside none:
// only its pc says so, which the reference has not (it would judge the
// lock word alone).
function call_out_of_turn(w) {
	const inside = w.pre_state.pc[String(w.data.thread)] === 'acquiring';
	return w.action === 'AcquireSuccess' || w.action === 'AcquireFail' ? !inside : inside;
}

// spin-task's events as the reference's windows: an acquire's outcome is
// AcquireLock, a lock() beginning on a lock another holds is the
// AcquireLock that starts spinning, a release is ReleaseLock; a call's
// beginning otherwise has no window of its own there.
function spin_view(w) {
	const pre = spin_state(w.pre_state), t = w.data.thread;
	if (!pre)
		return 'the state has no holder the reference can name';
	if (call_out_of_turn(w))
		return "a call out of the thread's turn: its pc says so, which the reference has not";
	const post = spin_post(w, pre);
	switch (w.action) {
	case 'AcquireSuccess':
		return [pre, 'AcquireLock', { thread: t, callType: w.data.callType }, post];
	case 'AcquireFail':
		return [pre, 'AcquireLock', { thread: t, callType: 'try' }, post];
	case 'TryAcquireBlocking':
		if (pre.lockHeld && pre.lockHolder !== t)
			return [pre, 'AcquireLock', { thread: t, callType: 'lock' }, post];
		return 'a lock() begun on a free or its own lock: the reference has its window at the outcome';
	case 'Release':
		return [pre, 'ReleaseLock', { thread: t }, post];
	default:
		return `${w.action}: the reference has its window at the outcome`;
	}
}

// etcd-task's state by variable seen as the reference's by node; a
// pre-candidate is no role of the reference's (null).
const ROLES = { StateFollower: 'follower', StateCandidate: 'candidate',
	StateLeader: 'leader' };

function etcd_state(st) {
	const nodes = {};
	for (const id of Object.keys(st.state)) {
		const role = ROLES[st.state[id]];
		if (!role)
			return null;
		nodes[id] = { role, term: st.currentTerm[id], vote: st.votedFor[id],
			commit: st.commitIndex[id], log: st.logLen[id] };
	}
	return { nodes };
}

// The message received as the reference's data, which names the fields
// after etcd's trace (index: the vote's logIndex or the append's
// prevLogIndex, commit: the message's commitIndex).
function etcd_data(input) {
	if (!input.type)
		return { node: input.node };
	const d = { node: input.to, from: input.from, term: input.term };
	if (input.type === 'MsgVote')
		Object.assign(d, { logTerm: input.logTerm, index: input.logIndex });
	else if (input.type === 'MsgApp')
		Object.assign(d, { logTerm: input.prevLogTerm, index: input.prevLogIndex,
			entries: input.entries, commit: input.commitIndex });
	else
		d.commit = input.commitIndex;
	return d;
}

function etcd_view(w) {
	const pre = etcd_state(w.pre_state), post = etcd_state(w.post_state);
	if (!pre || !post)
		return 'a pre-candidate: the reference has no such role';
	return [pre, w.action, etcd_data(w.data), post];
}

// spin-spinning's windows in spin's shape: who spins is not the reference's.
function spinning_view(w) {
	const lock = (st) => ({ lockHeld: st.lockHeld, lockHolder: st.lockHolder });
	return [lock(w.pre_state), w.action, w.data, lock(w.post_state)];
}

const views = { 'spin-task': spin_view, 'etcd-task': etcd_view,
	'spin-spinning': spinning_view };

function usage() {
	console.error('usage: sysmobench-tv.js TV.mjs SPEC.js [--view ' +
		Object.keys(views).join('|') + '] [--actions A,B,...]');
	process.exit(2);
}

function main() {
	const [tvPath, specPath, ...opts] = process.argv.slice(2);
	let view = null, actions = null;
	for (let i = 0; i < opts.length; i += 2) {
		if (opts[i] === '--view' && views[opts[i + 1]])
			view = views[opts[i + 1]];
		else if (opts[i] === '--actions' && opts[i + 1])
			actions = opts[i + 1].split(',');
		else
			usage();
	}
	if (!tvPath || !specPath)
		usage();
	const tv = load_tv(path.resolve(tvPath));
	const spec = path.resolve(specPath);
	serve((w) => {
		const v = view ? view(w) : [w.pre_state, w.action, w.data, w.post_state];
		if (typeof v === 'string')
			return { unscoreable: v };
		const [preState, action, data, postState] = v;
		if (actions && !actions.includes(action))
			return { unscoreable: `${action}: not a target action of the spec` };
		const r = tv({ specPath: spec, windows: [{ action, data, preState, postState }] });
		if (!r.ok)
			return { unscoreable: r.error };
		const res = r.results[0];
		return res.status === 'pass' ? { ok: true } :
			{ ok: false, why: `${action} ${JSON.stringify(data)} from ${JSON.stringify(preState)}: tv.mjs got ${JSON.stringify(res.got)}` };
	});
}

main();
