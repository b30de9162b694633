// SPDX-License-Identifier: MIT
// Planted wrong: bank-next.js with a fee the payer pays on top.  It must
// fail the transfers that charge one.
'use strict';
const { transfer, verdictWith } = require('./bank-next.js');

require('../graders/protocol.js').serve(verdictWith((bal, d) => {
	const r = transfer(bal, d);

	if (r.ok)
		r.balances[d.from] -= d.fee;
	return r;
}));
