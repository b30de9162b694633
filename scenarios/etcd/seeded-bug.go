// SPDX-License-Identifier: MIT

//go:build with_tla && seeded_bug

package main

import "go.etcd.io/raft/v3"

// A test-only variant (tests/etcd/test-explore.sh): the trace says node 2's term
// went back by one, once, at its first event after it reached term 2, so
// that the fold's safety checks can be seen to catch a corrupted state.
var seededTerm uint64

func seededBug(ev *raft.TracingEvent) {
	if ev.NodeID != "2" {
		return
	}
	if seededTerm >= 2 && ev.State.Term == seededTerm {
		ev.State.Term--
		seededTerm = 1 << 62 // once
		return
	}
	if seededTerm < 2 {
		seededTerm = ev.State.Term
	}
}
