// SPDX-License-Identifier: MIT
// Planted wrong: lock-next.js with an Unlock that leaves the lock as it
// was.  It must fail the windows that unlock.
'use strict';
const { next, verdictWith } = require('./lock-next.js');

require('../graders/protocol.js').serve(verdictWith((s, action, thread) =>
	action === 'Unlock' ? (s.held && s.holder === thread ? s : null) :
		next(s, action, thread)));
