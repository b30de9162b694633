// SPDX-License-Identifier: MIT

//go:build !with_tla

package main

import (
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Without the with_tla tag raft has no trace hook and the harness writes
// nothing: the probes read the state.
func setTraceLogger(*raft.Config) {}

func flushTrace() {}

func traceEvents() int { return 0 }

func traceDropped(uint64, *pb.HardState, string, uint64) {}
