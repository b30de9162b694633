// SPDX-License-Identifier: MIT
// Reference grader of the zookeeper projection (docs/zookeeper.md),
// written from ZooKeeper's Fast Leader Election as its own TLA+ spec
// states it (FastLeaderElection.tla of zookeeper-specifications: ZabTimeout,
// HandleNotmsg, ReceivedFollowingAndLeadingNotification, WaitNewNotmsg)
// and FastLeaderElection.java's rules it abstracts (totalOrderPredicate,
// Vote.equals, checkLeader): next(state, action, data) is the state the
// step must reach, and a window passes when it reaches exactly that.
// Three voting servers unless ZK_SERVERS says otherwise.
//
// ZK_MUTANT=NAME plants one wrong rule (the test's planted graders):
// their names and what they get wrong are in `mutants` below.
'use strict';

const SERVERS = Number(process.env.ZK_SERVERS || 3);
const MUTANT = process.env.ZK_MUTANT || '';
const mutants = {
	'ignore-epoch': 'votes ordered by zxid and id only, not the epoch first',
	'lower-id-wins': 'of two votes alike but for the id, the lower id wins',
	'adopt-always': 'a LOOKING notification of the round is always adopted',
	'no-clear': 'a newer round does not clear the votes received',
	'no-catch-up': 'a newer round is ignored like an older one',
	'highest-id-leads': 'the server with the highest id becomes leader, whatever the vote',
	'timeout-resets': 'a notification timeout starts a new round',
};
if (MUTANT && !mutants[MUTANT])
	throw new Error(`no mutant ${MUTANT}: ${Object.keys(mutants).join(', ')}`);

const copy = (v) => JSON.parse(JSON.stringify(v));
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// totalOrderPredicate: is @n a better vote than @c (epoch, then zxid, then id)?
function better(n, c) {
	const id = MUTANT === 'lower-id-wins' ? c.proposedLeader > n.proposedLeader
		: n.proposedLeader > c.proposedLeader;

	if (MUTANT !== 'ignore-epoch' && n.proposedEpoch !== c.proposedEpoch)
		return n.proposedEpoch > c.proposedEpoch;
	if (n.proposedZxid !== c.proposedZxid)
		return n.proposedZxid > c.proposedZxid;
	return id;
}

// Vote.equals: a LOOKING vote on either side compares all of it; else the
// leader and its epoch alone (ZOOKEEPER-1732).
function sameVote(a, b) {
	const whole = a.state === 'LOOKING' || b.state === 'LOOKING';

	return a.vote.proposedLeader === b.vote.proposedLeader &&
		a.vote.proposedEpoch === b.vote.proposedEpoch &&
		(!whole || (a.vote.proposedZxid === b.vote.proposedZxid && a.round === b.round));
}

function quorum(votes, v) {
	return 2 * Object.values(votes).filter((e) => sameVote(e, v)).length > SERVERS;
}

// checkLeader: the leader voted for has said it leads, or is the server
// itself in the round the votes are of.
function checkLeader(votes, leader, round, me, clock) {
	if (leader !== me)
		return !!votes[leader] && votes[leader].state === 'LEADING';
	return clock === round;
}

function ownVote(s, st) {
	return { proposedLeader: Number(s), proposedZxid: st.lastZxid[s], proposedEpoch: st.currentEpoch[s] };
}

// lookForLeader's handling of notification @d by server @s (HandleNotmsg).
function handle(st, s, d) {
	const clock = st.logicalClock[s];
	const got = { vote: d.vote, round: d.round, state: d.state };
	const rv = st.receiveVotes[s], ooe = st.outOfElection[s];

	if (d.state === 'LOOKING') {
		if (st.lastZxid[s] === -1 || d.vote.proposedZxid === -1)
			return;
		if (d.round > clock && MUTANT !== 'no-catch-up') {
			const own = ownVote(s, st);

			st.logicalClock[s] = d.round;
			if (MUTANT !== 'no-clear')
				st.receiveVotes[s] = {};
			st.currentVote[s] = better(d.vote, own) ? d.vote : own;
		} else if (d.round !== clock) {
			return;
		} else if (MUTANT === 'adopt-always' || better(d.vote, st.currentVote[s])) {
			st.currentVote[s] = d.vote;
		}
		st.receiveVotes[s][d.from] = got;
		return;
	}
	if (d.state !== 'FOLLOWING' && d.state !== 'LEADING')
		return;
	// receivedFollowingNotification: this round's votes, then all of theirs.
	if (d.round === clock) {
		rv[d.from] = got;
		if (quorum(rv, got) && checkLeader(rv, d.vote.proposedLeader, d.round, Number(s), clock)) {
			st.currentVote[s] = d.vote;
			return;
		}
	}
	ooe[d.from] = got;
	if (quorum(ooe, got) &&
	    checkLeader(ooe, d.vote.proposedLeader, d.round, Number(s), clock)) {
		st.logicalClock[s] = d.round;
		st.currentVote[s] = d.vote;
	}
}

// A server (re)started: LOOKING, clock 0, its own vote of what it loaded.
function start(st, s, d) {
	st.state[s] = 'LOOKING';
	st.logicalClock[s] = 0;
	st.currentEpoch[s] = d.currentEpoch;
	st.lastZxid[s] = d.lastZxid;
	st.currentVote[s] = ownVote(s, st);
	st.receiveVotes[s] = {};
	st.outOfElection[s] = {};
}

function next(pre, action, d) {
	const st = copy(pre);
	const s = String(d.server);

	switch (action) {
	case 'ServerStart':
	case 'ServerRestart':
		start(st, s, d);
		return st;
	case 'StartElection':   // ZabTimeout: a new round with the server's own vote
		st.state[s] = 'LOOKING';
		st.logicalClock[s] += 1;
		st.currentEpoch[s] = d.currentEpoch;
		st.lastZxid[s] = d.lastZxid;
		st.currentVote[s] = ownVote(s, st);
		st.receiveVotes[s] = {};
		st.outOfElection[s] = {};
		return st;
	case 'Notification':    // electionMsgs: no server's state
		return st;
	case 'NotificationTimeout':   // notifications sent again
		if (MUTANT === 'timeout-resets')
			st.logicalClock[s] += 1;
		return st;
	case 'HandleNotification':
		handle(st, s, { ...d, from: String(d.from) });
		return st;
	case 'BecomeLeader':
	case 'BecomeFollower': {    // WaitNewNotmsg: lead the vote, or follow it
		const top = Object.keys(st.state).map(Number).sort((a, b) => b - a)[0];
		const leads = MUTANT === 'highest-id-leads' ? Number(s) === top
			: st.currentVote[s].proposedLeader === Number(s);

		st.state[s] = leads ? 'LEADING' : 'FOLLOWING';
		return st;
	}
	default:
		return undefined;
	}
}

// Where two states first differ: the variable and the server.
function difference(want, got) {
	for (const v of Object.keys(want))
		for (const id of new Set([...Object.keys(want[v] || {}), ...Object.keys(got[v] || {})]))
			if (!eq(want[v][id], (got[v] || {})[id]))
				return `${v}[${id}] must be ${JSON.stringify(want[v][id])}, got ${JSON.stringify((got[v] || {})[id])}`;
	return 'the state differs';
}

function verdict(w) {
	const want = next(w.pre_state, w.action, w.data);

	if (want === undefined)
		return { unscoreable: `${w.action} is no step of Fast Leader Election` };
	return eq(want, w.post_state) ? { ok: true } : { ok: false, why: difference(want, w.post_state) };
}

module.exports = { next, verdict, mutants };
if (require.main === module)
	require('./protocol.js').serve(verdict);
