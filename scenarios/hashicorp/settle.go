// SPDX-License-Identifier: MIT

// Quiescence: hashicorp's raft runs goroutines of its own (a main loop
// per node, a replicator and a heartbeater per follower of a leader, a
// vote asker per peer, the FSM's), so a step is over only when none of
// them can move without the harness.  Every timer raft arms is an hour
// long (main.go), except the back-off after a failed RPC; so the
// cluster is quiet when no goroutine is running or runnable, none waits
// out a back-off, and no main loop waits for the observer below.  The
// check reads every goroutine's stack (runtime.Stack stops the world:
// one consistent picture).
//
// One race is raft's own: a new leader starts a replicator per follower
// and only then appends its no-op entry, so a replicator that runs at
// once sends an append without it, one that runs late the no-op.  A
// blocking observer of PeerObservation (sent by the main loop right after
// it starts a replicator) holds the main loop there until everything
// else is quiet: the replicator always runs first.
package main

import (
	"bytes"
	"runtime"
	"time"

	"github.com/hashicorp/raft"
)

// backoffs are the select statements where raft v1.8.0 waits out a
// failed RPC's back-off (replication.go: replicateTo, heartbeat): a
// goroutine parked there wakes by a timer of 10 ms or more.
var backoffs = [][]byte{
	[]byte("hashicorp/raft@v1.8.0/replication.go:212 "),
	[]byte("hashicorp/raft@v1.8.0/replication.go:418 "),
}

var observing = []byte("hashicorp/raft.(*Raft).observe(")

// busy says whether the goroutine whose stack is g (its header line
// first) can still move by itself; a main loop held by the observer is,
// unless the observer asks.
func busy(g []byte, observer bool) bool {
	header, _, _ := bytes.Cut(g, []byte("\n"))
	if bytes.Contains(header, []byte("[running")) ||
		bytes.Contains(header, []byte("[runnable")) {
		return true
	}
	if !observer && bytes.Contains(header, []byte("[chan send")) &&
		bytes.Contains(g, observing) {
		return true
	}
	for _, b := range backoffs {
		if bytes.Contains(g, b) {
			return true
		}
	}
	return false
}

var stackBuf = make([]byte, 1<<20)

// quiet says whether no goroutine but the caller (the observer, if
// observer) can move.
func quiet(observer bool) bool {
	n := runtime.Stack(stackBuf, true)
	for len(stackBuf) == n {
		stackBuf = make([]byte, 2*len(stackBuf))
		n = runtime.Stack(stackBuf, true)
	}
	// the first goroutine is the caller's own
	gs := bytes.Split(stackBuf[:n], []byte("\n\n"))
	for _, g := range gs[1:] {
		if busy(g, observer) {
			return false
		}
	}
	return true
}

// settle waits until the cluster is quiet.
func settle() {
	for !quiet(false) {
		time.Sleep(50 * time.Microsecond)
	}
}

// observations: every node's blocking observer sends here.
var observations = make(chan raft.Observation)

// observe takes each observation once everything else is quiet.
func observe() {
	for {
		for !quiet(true) {
			time.Sleep(50 * time.Microsecond)
		}
		<-observations
	}
}

func init() { go observe() }

// peerObserver holds a node's main loop where it starts a replicator.
func peerObserver() *raft.Observer {
	return raft.NewObserver(observations, true, func(o *raft.Observation) bool {
		_, peer := o.Data.(raft.PeerObservation)
		return peer
	})
}
