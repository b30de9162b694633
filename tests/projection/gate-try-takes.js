// SPDX-License-Identifier: MIT
// Planted wrong: gate-next.js with a TryEnter that takes the gate even
// when another holds it.  It must fail the TryEnter windows that found it
// held.
'use strict';
const { next, verdictWith } = require('./gate-next.js');

require('../graders/protocol.js').serve(verdictWith((s, action, d) =>
	action === 'TryEnter' ? { held: true, holder: d.who, waiting: s.waiting } :
		next(s, action, d)));
