// SPDX-License-Identifier: MIT

// Command stepbench is the target of bench/ebpf-overhead: it calls
// raft.(*raft).Step (through RawNode.Step) N times with a message that a
// candidate ignores without logging (a MsgAppResp), so a call costs little
// besides what a probe adds, and prints the nanoseconds per call.  The calls are spread
// over fresh goroutines, whose small initial stacks make some calls grow
// the stack: a probe at Step's symbol then fires twice for one call.
//
// Usage: stepbench N
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// callsPerGoroutine calls run on each fresh goroutine, call i at stack
// depth i % maxDepth: the first calls that reach past the goroutine's
// stack make it grow, some of them inside Step's prologue.
const (
	callsPerGoroutine = 1000
	maxDepth          = 256
)

// at calls f under depth frames of its own.
//
//go:noinline
func at(depth int, f func()) {
	if depth == 0 {
		f()
		return
	}
	at(depth-1, f)
}

func newNode() *raft.RawNode {
	st := raft.NewMemoryStorage()
	snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
		ConfState: &pb.ConfState{Voters: []uint64{1, 2, 3}},
	}}
	if err := st.ApplySnapshot(snap); err != nil {
		log.Fatal(err)
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID: 1, ElectionTick: 10, HeartbeatTick: 1, Storage: st,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256,
		Logger: &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)},
	})
	if err != nil {
		log.Fatal(err)
	}
	// A candidate: stepCandidate ignores an MsgAppResp.
	if err := rn.Campaign(); err != nil {
		log.Fatal(err)
	}
	for rn.HasReady() {
		rd := rn.Ready()
		if err := st.Append(rd.Entries); err != nil {
			log.Fatal(err)
		}
		rn.Advance(rd)
	}
	return rn
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: stepbench N")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 0 {
		log.Fatal("stepbench: N must be a count")
	}
	rn := newNode()
	m := &pb.Message{Type: pb.MsgAppResp.Enum(),
		From: new(uint64(2)), To: new(uint64(1))}
	start := time.Now()
	for done := 0; done < n; {
		batch := min(callsPerGoroutine, n-done)
		finished := make(chan struct{})
		go func() {
			step := func() { _ = rn.Step(m) }
			for i := 0; i < batch; i++ {
				at(i%maxDepth, step)
			}
			close(finished)
		}()
		<-finished
		done += batch
	}
	elapsed := time.Since(start)
	if n > 0 {
		fmt.Printf("%.1f\n", float64(elapsed.Nanoseconds())/float64(n))
	} else {
		fmt.Println(0)
	}
}
