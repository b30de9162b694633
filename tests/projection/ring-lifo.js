// SPDX-License-Identifier: MIT
// Planted wrong: ring-next.js with a get that takes the newest value (a
// stack).  It must fail the gets where the ring holds more than one.
'use strict';
const { next, verdictWith } = require('./ring-next.js');

require('../graders/protocol.js').serve(verdictWith((s, action, d) => {
	if (action !== 'Get' || s.count < 2)
		return next(s, action, d);
	return next({ ...s, head: (s.tail + 255) % 256 }, action, d);
}));
