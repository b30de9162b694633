// SPDX-License-Identifier: MIT

// The network: a raft.Transport per node incarnation whose calls queue a
// message for the harness to deliver, drop or reorder.  hashicorp's RPCs
// are calls that block until answered; here the request is one message
// (sender -> target) and the answer another (target -> sender), so that
// "deliver T<-F" means the same on both rafts: F's messages queued for T.
package main

import (
	"errors"
	"io"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
	"raft/lang"
)

// errLost answers a call whose request or response the network lost (a
// drop, a discard, a partition, a crashed end): what a real transport's
// timeout would say.
var errLost = errors.New("message lost")

// call is one RPC in flight: its caller waits on done.
type call struct {
	caller   *transport
	resp     any // the caller's response struct, filled on answer
	done     chan error
	answered bool
}

// answer ends the call once: the response is copied into the caller's.
func (c *call) answer(resp any, err error) {
	if c.answered {
		return
	}
	c.answered = true
	if err == nil && resp != nil {
		reflect.ValueOf(c.resp).Elem().Set(reflect.ValueOf(resp).Elem())
	}
	c.done <- err
}

// message is a request (resp == nil) or the answer to one.
type message struct {
	from, to uint64
	req      any    // *raft.AppendEntriesRequest, *raft.RequestVoteRequest, ...
	data     []byte // an InstallSnapshot request's snapshot
	call     *call
	response bool
	resp     any // the answer's value
	err      error
}

// transport is one incarnation of a node on the network; dead once the
// node crashed (its calls then fail at once).
type transport struct {
	c        *cluster
	id       uint64
	consumer chan raft.RPC
	r        *raft.Raft // the incarnation's raft, once started
	dead     bool
}

func serverID(id uint64) raft.ServerID {
	return raft.ServerID(strconv.FormatUint(id, 10))
}

func nodeOf(addr raft.ServerAddress) uint64 {
	id, err := strconv.ParseUint(string(addr), 10, 64)
	if err != nil || id < 1 || id > nodes {
		lang.Fatal(1, "no node at address %q", addr)
	}
	return id
}

func (t *transport) Consumer() <-chan raft.RPC { return t.consumer }

func (t *transport) LocalAddr() raft.ServerAddress {
	return raft.ServerAddress(serverID(t.id))
}

// AppendEntriesPipeline: no pipeline, so that every append is one call
// the harness sees (raft falls back to AppendEntries).
func (t *transport) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported
}

// AppendEntries of a node that is no longer leader is lost at once.  A
// leader that steps down while a replicator's call is pending leaves
// that replicator a random choice (replicate's select, replication.go:146
// of v1.8.0: its stop and a queued trigger both ready) between one last
// append and two, and its heartbeater one between a last heartbeat and
// none; a stepped-down node's appends are what raft sends only by that
// draw, so the network loses them all.
func (t *transport) AppendEntries(_ raft.ServerID, target raft.ServerAddress,
	args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	t.c.mu.Lock()
	stale := t.r != nil && t.r.State() != raft.Leader
	t.c.mu.Unlock()
	if stale {
		return errLost
	}
	return t.send(target, args, resp)
}

func (t *transport) RequestVote(_ raft.ServerID, target raft.ServerAddress,
	args *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	return t.send(target, args, resp)
}

func (t *transport) RequestPreVote(_ raft.ServerID, target raft.ServerAddress,
	args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.send(target, args, resp)
}

// InstallSnapshot queues the request with the snapshot's bytes, read
// whole now: the leader sends one when a follower needs an entry a
// compact dropped from its log.
func (t *transport) InstallSnapshot(_ raft.ServerID, target raft.ServerAddress,
	args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	snap, err := io.ReadAll(data)
	if err != nil {
		return err
	}
	return t.sendWith(target, args, resp, snap)
}

func (t *transport) TimeoutNow(_ raft.ServerID, target raft.ServerAddress,
	args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	return t.send(target, args, resp)
}

// EncodePeer is called by a replicator's setupAppendEntries right before
// it reads the commit index into the append (replication.go:574 of
// v1.8.0): there the replicator is held until everything else is quiet,
// the main loop having taken the news of a commit the replicator's last
// answer made (settle.go).
func (t *transport) EncodePeer(_ raft.ServerID, addr raft.ServerAddress) []byte {
	if settingUpAppend() {
		lateAppend()
		holdAppend()
	}
	return []byte(addr)
}

// settingUpAppend says whether EncodePeer's caller is setupAppendEntries
// (not getRPCHeader, a heartbeat, a vote request or a snapshot's).
func settingUpAppend() bool {
	var pcs [8]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for f, more := frames.Next(); more; f, more = frames.Next() {
		if f.Function == "main.(*transport).EncodePeer" {
			f, _ = frames.Next()
			return f.Function == "github.com/hashicorp/raft.(*Raft).setupAppendEntries"
		}
	}
	return false
}

// lateness is how long a replicator yields before it is held
// (HASHICORP_HARNESS_LATE_APPEND, microseconds, for a test): without the
// hold, the main loop then took a commit's news before the replicator
// read the commit index, the schedule a loaded machine gave sometimes;
// GOMAXPROCS=1 gave the other (the replicator runs on until it blocks).
// It yields rather than sleeps, so that settle sees it move.
var lateness = func() time.Duration {
	v, set := os.LookupEnv("HASHICORP_HARNESS_LATE_APPEND")
	us, err := strconv.ParseUint(v, 10, 32)
	if set && err != nil {
		lang.Fatal(2, "HASHICORP_HARNESS_LATE_APPEND=%q: expected microseconds", v)
	}
	return time.Duration(us) * time.Microsecond
}()

func lateAppend() {
	for start := time.Now(); time.Since(start) < lateness; {
		runtime.Gosched()
	}
}

func (t *transport) DecodePeer(b []byte) raft.ServerAddress {
	return raft.ServerAddress(b)
}

// SetHeartbeatHandler: heartbeats go through Consumer like every RPC, to
// raft's main loop, so that one node's handling is one goroutine's.
func (t *transport) SetHeartbeatHandler(func(raft.RPC)) {}

// send queues a request for target and waits for its answer.
func (t *transport) send(target raft.ServerAddress, req, resp any) error {
	return t.sendWith(target, req, resp, nil)
}

// sendWith is send with the data that follows the request (a snapshot's).
func (t *transport) sendWith(target raft.ServerAddress, req, resp any, data []byte) error {
	cl := &call{caller: t, resp: resp, done: make(chan error, 1)}
	c := t.c
	c.mu.Lock()
	if t.dead {
		cl.answer(nil, errLost)
	} else {
		c.route(&message{from: t.id, to: nodeOf(target), req: req, data: data, call: cl})
	}
	c.mu.Unlock()
	return <-cl.done
}
