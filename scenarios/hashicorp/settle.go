// SPDX-License-Identifier: MIT

// Quiescence: hashicorp's raft runs goroutines of its own (a main loop
// per node, a replicator and a heartbeater per follower of a leader, a
// vote asker per peer, the FSM's), so a step is over only when none of
// them can move without the harness.  Every timer raft arms is an hour
// long (main.go), except the back-off after a failed RPC; so the
// cluster is quiet when every goroutine is parked (waits for another to
// move it), none waits out a back-off, and none is held (below).  The
// check reads every goroutine's stack (runtime.Stack stops the world:
// one consistent picture, in a buffer of the goroutine that looks).
//
// Two races are raft's own, each ordered by holding one goroutine where
// it calls the harness until everything else is quiet:
//
//   - a new leader starts a replicator per follower and only then appends
//     its no-op entry, so a replicator that runs at once sends an append
//     without it, one that runs late the no-op.  A blocking observer of
//     PeerObservation (sent by the main loop right after it starts a
//     replicator) holds the main loop there: the replicator always runs
//     first.
//   - a replicator whose append is answered tells the leader's commitment
//     (commitCh, which the main loop takes to raise the commit index) and
//     at once sends the entries proposed meanwhile, the commit index read
//     into that append while the main loop may or may not have taken the
//     news: the commit it carries followed the schedule.  The transport
//     holds the replicator where it sets up an append (EncodePeer, called
//     right before the commit index is read): the main loop always takes
//     the news first, and an append carries the commit the leader knows.
//
// settle counts a held goroutine as one that can move (release lets it
// go); release lets a replicator go before a main loop.
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

// holding are the calls where a goroutine of raft's is held: a main loop
// sending the observer an observation, a replicator in holdAppend.
var holding = [][]byte{
	[]byte("hashicorp/raft.(*Raft).observe("),
	[]byte("main.holdAppend("),
}

// held says whether the goroutine whose stack is g is held (blocked
// sending release what it is about to do).
func held(g []byte) bool {
	header, _, _ := bytes.Cut(g, []byte("\n"))
	if !bytes.Contains(header, []byte("[chan send")) {
		return false
	}
	for _, h := range holding {
		if bytes.Contains(g, h) {
			return true
		}
	}
	return false
}

// parked are the states (runtime.Stack's "[select]", "[chan receive, 2
// minutes]") of a goroutine that waits for another to move it.  Any
// other moves by itself: running, runnable, and the runtime's own short
// waits, such as "semacquire" (an allocation that starts a GC while
// another goroutine stops the world, as runtime.Stack does), "GC assist
// wait" or "preempted"; taking those for parked let settle return while a
// new leader's main loop was still on its way to its replicators.
var parked = map[string]bool{
	"chan receive": true, "chan send": true, "select": true,
	"chan receive (nil chan)": true, "chan send (nil chan)": true,
	"select (no cases)": true, "sleep": true, "sync.Cond.Wait": true,
	"sync.Mutex.Lock": true, "sync.RWMutex.RLock": true,
	"sync.RWMutex.Lock": true, "sync.WaitGroup.Wait": true,
}

// state is a goroutine's state from its stack's header line
// ("goroutine 7 [chan receive, 2 minutes]:" gives "chan receive").
func state(header []byte) string {
	_, st, _ := bytes.Cut(header, []byte("["))
	st, _, _ = bytes.Cut(st, []byte("]"))
	st, _, _ = bytes.Cut(st, []byte(","))
	return string(st)
}

// moving says whether the goroutine whose stack is g can still move by
// itself (a held one is not: held says so).
func moving(g []byte) bool {
	header, _, _ := bytes.Cut(g, []byte("\n"))
	if !parked[state(header)] {
		return true
	}
	for _, b := range backoffs {
		if bytes.Contains(g, b) {
			return true
		}
	}
	return false
}

// stacks is a buffer for every goroutine's stack, one per goroutine that
// looks: settle and release look at the same time, and a buffer they
// shared would be overwritten by one while the other reads it (which let
// settle see a quiet cluster that was not: a new leader's main loop still
// held, its BecomeLeader after the next step's events).
type stacks struct{ buf []byte }

// others reads every goroutine's stack at once but the caller's.
func (s *stacks) others() [][]byte {
	if s.buf == nil {
		s.buf = make([]byte, 1<<20)
	}
	n := runtime.Stack(s.buf, true)
	for len(s.buf) == n {
		s.buf = make([]byte, 2*len(s.buf))
		n = runtime.Stack(s.buf, true)
	}
	// the first goroutine is the caller's own
	return bytes.Split(s.buf[:n], []byte("\n\n"))[1:]
}

// quiet says how many goroutines but the caller's are held, and whether
// none of the others can move.
func (s *stacks) quiet() (holds int, still bool) {
	for _, g := range s.others() {
		if held(g) {
			holds++
		} else if moving(g) {
			return holds, false
		}
	}
	return holds, true
}

var settled stacks

// settle waits until the cluster is quiet: nothing can move, nothing is
// held.
func settle() {
	for {
		if holds, still := settled.quiet(); still && holds == 0 {
			return
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// observations: every node's blocking observer sends here; appends:
// every replicator about to read the commit index into an append.
var (
	observations = make(chan raft.Observation)
	appends      = make(chan struct{})
)

// holdAppend holds a replicator until release lets it read the commit
// index (transport.go, EncodePeer).
//
//go:noinline
func holdAppend() { appends <- struct{}{} }

// release lets one held goroutine go once everything else is quiet: a
// replicator before a main loop, so that the two held at once (a new
// leader's main loop after starting a replicator, that replicator at its
// first append) go in one order.  Two replicators held at once are one
// leader's, each sending to a follower of its own: either may go first.
func release() {
	var s stacks
	for {
		for {
			if holds, still := s.quiet(); still && holds > 0 {
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
		select {
		case <-appends:
		default:
			select {
			case <-appends:
			case <-observations:
			}
		}
	}
}

func init() { go release() }

// peerObserver holds a node's main loop where it starts a replicator.
func peerObserver() *raft.Observer {
	return raft.NewObserver(observations, true, func(o *raft.Observation) bool {
		_, peer := o.Data.(raft.PeerObservation)
		return peer
	})
}
