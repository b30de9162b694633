// SPDX-License-Identifier: MIT

//go:build with_tla

package main

import (
	"bufio"
	"encoding/json"
	"os"

	"go.etcd.io/raft/v3"
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
		fatal(1, "trace: %v", err)
	}
}

func setTraceLogger(cfg *raft.Config) {
	cfg.TraceLogger = sink
}

func flushTrace() {
	if err := sink.out.Flush(); err != nil {
		fatal(1, "trace: %v", err)
	}
}

// traceEvents is how many events were written so far (for the step map).
func traceEvents() int {
	return sink.events
}
