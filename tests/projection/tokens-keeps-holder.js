// SPDX-License-Identifier: MIT
// Planted wrong: tokens-next.js with a give_back that leaves the worker
// among the holders.  It must fail the give_backs that return a token.
'use strict';
const { next, verdictWith } = require('./tokens-next.js');

require('../graders/protocol.js').serve(verdictWith((s, action, d) => {
	const r = next(s, action, d);

	if (r && action === 'GiveBack' && r.ok)
		r.state = { ...r.state, holders: s.holders };
	return r;
}));
