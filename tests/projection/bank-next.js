// SPDX-License-Identifier: MIT
// A next() for tests/projection/bank.probes, written from the bank's
// documentation (tests/go/bank/main.go): apply "moves the money if the
// payer has it", the fee only logged; a bank's accounts open with 100
// each.  A window is a step of one bank (data.bank): the others keep
// their balances.  A bank that enters (its process starts) holds 100 in
// each account.
'use strict';

function eq(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}

// The balances after transfer @d from @bal; its outcome.
function transfer(bal, d) {
	const next = bal.slice();

	if (bal[d.from] < d.amount)
		return { balances: next, ok: false };
	next[d.from] -= d.amount;
	next[d.to] += d.amount;
	return { balances: next, ok: true };
}

function judgeWith(step) {
	return (w) => {
		const { action, data: d, pre_state: pre, post_state: post } = w;
		const id = String(d.bank);

		for (const k of new Set([...Object.keys(pre.banks), ...Object.keys(post.banks)]))
			if (k !== id && !eq(pre.banks[k], post.banks[k]))
				return `bank ${k} changed in a step of bank ${id}`;
		if (action === 'UntracedChange')
			return !pre.banks[id] && post.banks[id].balances.every((b) => b === 100) ? null :
				`bank ${id} changed untraced: ${JSON.stringify(pre.banks[id])} -> ${JSON.stringify(post.banks[id])}`;
		if (action !== 'Transfer')
			return `no action ${action} in the bank`;
		const want = step(pre.banks[id].balances, d);
		if (want.ok !== d.ok)
			return `the payer ${want.ok ? 'could' : 'could not'} pay ${d.amount}, apply says ${d.ok}`;
		return eq(want.balances, post.banks[id].balances) ? null :
			`balances ${JSON.stringify(post.banks[id].balances)}, expected ${JSON.stringify(want.balances)}`;
	};
}

function verdictWith(step) {
	const judge = judgeWith(step);

	return (w) => {
		const why = judge(w);

		return why ? { ok: false, why } : { ok: true };
	};
}

module.exports = { transfer, verdictWith };
if (require.main === module)
	require('../graders/protocol.js').serve(verdictWith(transfer));
