// SPDX-License-Identifier: MIT

//go:build with_tla && !seeded_bug

package main

import "go.etcd.io/raft/v3"

// Without the test-only seeded_bug tag the trace is raft's own.
func seededBug(*raft.TracingEvent) {}
