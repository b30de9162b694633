// SPDX-License-Identifier: MIT

//go:build with_tla

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"raft/lang"
)

// ndjsonSink implements upstream's raft.TraceLogger: one event, as upstream
// defines it, per stdout line (without the zap envelope of upstream's own
// test logger).
type ndjsonSink struct {
	out    *bufio.Writer
	enc    *json.Encoder
	events int
}

var sink = newSink()

func newSink() *ndjsonSink {
	out := bufio.NewWriter(os.Stdout)
	return &ndjsonSink{out: out, enc: json.NewEncoder(out)}
}

func (s *ndjsonSink) TraceEvent(ev *raft.TracingEvent) {
	s.events++
	seededBug(ev)
	if err := s.enc.Encode(ev); err != nil {
		lang.Fatal(1, "trace: %v", err)
	}
}

func setTraceLogger(cfg *raft.Config) {
	cfg.TraceLogger = sink
}

func flushTrace() {
	if err := sink.out.Flush(); err != nil {
		lang.Fatal(1, "trace: %v", err)
	}
}

// traceEvents is how many events were written so far (for the step map).
func traceEvents() int {
	return sink.events
}

// droppedEvent is the event upstream has no trace point for: a leader's
// appendEntry dropped a proposal (raft.probes reads its false).  Upstream's
// TracingEvent would write an empty conf, which the probes do not.
type droppedEvent struct {
	Name   string            `json:"name"`
	NodeID string            `json:"nid"`
	State  raft.TracingState `json:"state"`
	Role   string            `json:"role"`
	Log    uint64            `json:"log"`
}

// traceDropped writes node id's ProposalDropped with its state.
func traceDropped(id uint64, hs *pb.HardState, role string, log uint64) {
	nid := strconv.FormatUint(id, 10)
	st := raft.TracingState{Term: hs.GetTerm(), Vote: strconv.FormatUint(hs.GetVote(), 10),
		Commit: hs.GetCommit()}
	sink.events++
	if err := sink.enc.Encode(droppedEvent{"ProposalDropped", nid, st, role, log}); err != nil {
		lang.Fatal(1, "trace: %v", err)
	}
}
