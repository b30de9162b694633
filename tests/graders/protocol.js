// SPDX-License-Identifier: MIT
// The `capture grade` line protocol, for the reference graders: one window
// a line on stdin, one verdict a line on stdout, in order.
'use strict';

// Answer every window line with verdict(window).
function serve(verdict) {
	const rl = require('readline').createInterface({ input: process.stdin });

	rl.on('line', (line) => {
		process.stdout.write(JSON.stringify(verdict(JSON.parse(line))) + '\n');
	});
}

module.exports = { serve };
