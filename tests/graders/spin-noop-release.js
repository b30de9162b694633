// SPDX-License-Identifier: MIT
// Negative control for `capture grade`: the reference spin grader with a
// release that does nothing.  It must fail every ReleaseLock window and
// nothing else.
'use strict';
const ref = require('./spin-next.js');

ref.serve((state, action, data) =>
	action === 'ReleaseLock' ? state : ref.next(state, action, data));
