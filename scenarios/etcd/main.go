// SPDX-License-Identifier: MIT

// Command etcd-harness drives a 3-node etcd raft cluster through one scenario
// file, deterministically: RawNode over MemoryStorage, messages delivered by
// hand, explicit Campaign, no goroutines of its own, no randomness that
// matters (ticks only where the scenario says), and every node's Ready
// drained after each step so that one step's raft activity is contiguous.
// The network is the harness's queues: it loses, duplicates or reorders a
// message only where the scenario says, and drops what is sent across a
// partition or to a crashed node.
//
// It prints no raft state of its own: the state in a corpus comes from eBPF
// probes on this process, or (built with -tags with_tla) from upstream's
// TraceLogger hook, whose events tracing.go writes to stdout.
//
// Usage: etcd-harness SCENARIO_FILE [STEP_MAP]; etcd-harness -batch
// SCENARIO_FILE... replays each in turn, each on a cluster of its own, in
// one process (probes attached once); -generate and -serve are an
// exploration's (the language's, scenarios/raft/lang; explore.go: this
// cluster's options).
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"reflect"
	"slices"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
	"raft/lang"
)

// nodes start as the cluster; up to maxNodes, the others join by add-node.
const (
	nodes    = 3
	maxNodes = 5
)

// node is one raft node; rn is nil while it is crashed.  Its storage is
// its disk: it survives a crash (every Ready is persisted before the next
// step, so a crash loses only volatile state).  A held node's Ready waits
// (hold, release): raft steps on with what it has not handed out yet.
type node struct {
	rn      *raft.RawNode
	storage *raft.MemoryStorage
	held    bool
	removed bool        // stopped for good: a node applied its removal
	pending []confEntry // committed conf changes not yet applied
	confs   []confAt    // conf states applied since the RawNode started
}

// cluster holds the nodes and the messages in flight, queued per recipient
// in the order they were sent, and the partition (nodes in different
// groups cannot reach each other; all in group 0 when healed).
type cluster struct {
	cfg    lang.Config
	logger raft.Logger
	nodes  [maxNodes + 1]*node // nil: not started
	queue  [maxNodes + 1][]*pb.Message
	group  [maxNodes + 1]int
}

// refuse describes a step raft or the harness cannot carry out: the
// scenario's fault, reported with the step's file:line.
func refuse(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

func newCluster(cfg lang.Config) *cluster {
	c := &cluster{cfg: cfg}
	c.logger = &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)}
	for id := uint64(1); id <= nodes; id++ {
		c.join(id)
	}
	return c
}

// join starts node id over a storage of its own that holds a bootstrap
// snapshot at index 0 carrying only the configuration: every node starts
// knowing peers 1, 2, 3 with an empty log (a node added later too, as an
// etcd member joins with the cluster's membership; it becomes a voter
// when it applies its own ConfChange from the log).
func (c *cluster) join(id uint64) {
	st := raft.NewMemoryStorage()
	snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
		ConfState: &pb.ConfState{Voters: []uint64{1, 2, 3}},
	}}
	if err := st.ApplySnapshot(snap); err != nil {
		lang.Fatal(1, "bootstrap snapshot: %v", err)
	}
	c.nodes[id] = &node{storage: st}
	c.start(id)
}

// start creates node id's RawNode over its storage: at the beginning, and
// on a restart (then drained), where raft reads its hard state, configuration and log
// back from the storage.
func (c *cluster) start(id uint64) {
	n := c.nodes[id]
	rc := &raft.Config{
		ID:              id,
		ElectionTick:    c.cfg.ElectionTick,
		HeartbeatTick:   c.cfg.HeartbeatTick,
		PreVote:         c.cfg.PreVote,
		CheckQuorum:     c.cfg.CheckQuorum,
		Storage:         n.storage,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 256,
		Logger:          c.logger,

		DisableProposalForwarding: c.cfg.NoForwarding,
		MaxUncommittedEntriesSize: c.cfg.MaxUncommitted,
	}
	setTraceLogger(rc)
	rn, err := raft.NewRawNode(rc)
	if err != nil {
		lang.Fatal(1, "node %d: %v", id, err)
	}
	n.rn = rn
	// raft hands the committed entries above the storage's snapshot out
	// again, and their conf changes are applied anew
	n.pending, n.confs = nil, nil
}

// route queues m for its recipient, unless the network drops it: the
// recipient is crashed or on the other side of a partition.
func (c *cluster) route(m *pb.Message) {
	to := m.GetTo()
	if c.nodes[to].rn == nil || c.group[to] != c.group[m.GetFrom()] {
		return
	}
	c.queue[to] = append(c.queue[to], m)
}

// drain runs node id's Ready loop to quiescence: persist a snapshot,
// entries and hard state, route outgoing messages, Advance.  A held node
// is left for its release.
func (c *cluster) drain(id uint64) {
	n := c.nodes[id]
	for !n.held && n.rn.HasReady() {
		rd := n.rn.Ready()
		if !raft.IsEmptySnap(rd.Snapshot) {
			if err := n.storage.ApplySnapshot(rd.Snapshot); err != nil {
				lang.Fatal(1, "node %d: apply snapshot: %v", id, err)
			}
		}
		if rd.HardState != nil && !raft.IsEmptyHardState(rd.HardState) {
			if err := n.storage.SetHardState(rd.HardState); err != nil {
				lang.Fatal(1, "node %d: set hard state: %v", id, err)
			}
		}
		if err := n.storage.Append(rd.Entries); err != nil {
			lang.Fatal(1, "node %d: append: %v", id, err)
		}
		for _, m := range rd.Messages {
			c.route(m)
		}
		if c.committed(id, rd.CommittedEntries); n.rn == nil {
			return // it applied its own removal
		}
		n.rn.Advance(rd)
	}
}

// find is the position in to's queue of the first message from, or -1.
func (c *cluster) find(to, from uint64) int {
	return slices.IndexFunc(c.queue[to], func(m *pb.Message) bool {
		return m.GetFrom() == from
	})
}

// take removes and returns the first message from queued for to.
func (c *cluster) take(to, from uint64) (*pb.Message, error) {
	i := c.find(to, from)
	if i < 0 {
		return nil, refuse("no message from %d queued for %d", from, to)
	}
	m := c.queue[to][i]
	c.queue[to] = slices.Delete(c.queue[to], i, i+1)
	return m, nil
}

// Drop loses the first message from queued for to.
func (c *cluster) Drop(to, from uint64) error {
	_, err := c.take(to, from)
	return err
}

// DeliverOne steps the first message from queued for to, then drains to.
func (c *cluster) DeliverOne(to, from uint64) error {
	m, err := c.take(to, from)
	if err != nil {
		return err
	}
	// A rejected step (e.g. a stale message) is raft's decision, not a
	// harness failure.
	_ = c.nodes[to].rn.Step(m)
	c.drain(to)
	return nil
}

// Deliver steps every message queued for to that from sent, one at a time
// in queue order, draining to after each; other senders' messages stay.
func (c *cluster) Deliver(to, from uint64) {
	for c.find(to, from) >= 0 {
		_ = c.DeliverOne(to, from)
	}
}

// Duplicate queues a copy of the first message from to to right after it.
func (c *cluster) Duplicate(to, from uint64) error {
	i := c.find(to, from)
	if i < 0 {
		return refuse("no message from %d queued for %d", from, to)
	}
	dup := proto.Clone(c.queue[to][i]).(*pb.Message)
	c.queue[to] = slices.Insert(c.queue[to], i+1, dup)
	return nil
}

// Reverse reverses the order of from's messages in to's queue; the other
// senders' messages keep their places.
func (c *cluster) Reverse(to, from uint64) {
	q := c.queue[to]
	var at []int
	for i, m := range q {
		if m.GetFrom() == from {
			at = append(at, i)
		}
	}
	for i, j := 0, len(at)-1; i < j; i, j = i+1, j-1 {
		q[at[i]], q[at[j]] = q[at[j]], q[at[i]]
	}
}

// Queued says whether a message from from is queued for to; QueuedFor,
// whether any is (the generator's view of the network).
func (c *cluster) Queued(to, from uint64) bool { return c.find(to, from) >= 0 }

func (c *cluster) QueuedFor(to uint64) bool { return len(c.queue[to]) > 0 }

// Duplicable: any message of etcd's can be duplicated.
func (c *cluster) Duplicable(to, from uint64) bool { return true }

func (c *cluster) Partitioned() bool { return c.group != [maxNodes + 1]int{} }

// Started: a node above nodes starts at its add-node.
func (c *cluster) Started(id uint64) bool { return c.nodes[id] != nil }

func (c *cluster) Crashed(id uint64) bool {
	n := c.nodes[id]
	return n != nil && n.rn == nil && !n.removed
}

func (c *cluster) Pending() bool {
	for to := 1; to <= maxNodes; to++ {
		if len(c.queue[to]) > 0 {
			return true
		}
	}
	return false
}

func (c *cluster) Campaign(id uint64) error {
	if err := c.nodes[id].rn.Campaign(); err != nil {
		return refuse("campaign %d: %v", id, err)
	}
	c.drain(id)
	return nil
}

// Propose hands data to node id; a follower forwards it to the leader it
// knows (MsgProp), and raft drops it if there is none (refused: the step
// does nothing).  A leader's drop (past max-uncommitted-size) is raft's
// decision, not refused.
func (c *cluster) Propose(id uint64, data string) error {
	err := c.nodes[id].rn.Propose([]byte(data))
	if err != nil && c.nodes[id].rn.Status().RaftState != raft.StateLeader {
		return refuse("propose %d: %v", id, err)
	}
	c.reportDrop(id, err)
	c.drain(id)
	return nil
}

// reportDrop tells the trace that leader id's appendEntry dropped the
// proposal just stepped (its false, raft.go:822; the probes read it), as
// raft's ErrProposalDropped says: stepLeader returns it for that, and
// before appending for a leader out of its configuration or one
// transferring its leadership, which this tells apart.
func (c *cluster) reportDrop(id uint64, err error) {
	st := c.nodes[id].rn.Status()
	if _, member := st.Progress[id]; !errors.Is(err, raft.ErrProposalDropped) ||
		st.RaftState != raft.StateLeader || !member || st.LeadTransferee != 0 {
		return
	}
	r := reflect.ValueOf(c.nodes[id].rn).Elem().FieldByName("raft").Elem()
	u := r.FieldByName("raftLog").Elem().FieldByName("unstable")
	last := u.FieldByName("offset").Uint() + uint64(u.FieldByName("entries").Len()) - 1
	traceDropped(id, st.HardState, st.RaftState.String(), last)
}

// electionElapsed is raft's count of ticks since node id last heard from
// a leader or changed role (unexported: read through reflect, never set).
func (c *cluster) electionElapsed(id uint64) int {
	r := reflect.ValueOf(c.nodes[id].rn).Elem().FieldByName("raft").Elem()
	return int(r.FieldByName("electionElapsed").Int())
}

// tickSafe says whether a tick of node id is deterministic: a leader's
// always is; a follower or candidate campaigns once its elapsed ticks
// reach a timeout raft draws at random from [ElectionTick,
// 2*ElectionTick), so only a tick that stays below ElectionTick is.
func (c *cluster) tickSafe(id uint64) bool {
	if c.nodes[id].rn.Status().RaftState == raft.StateLeader {
		return true
	}
	return c.electionElapsed(id)+1 < c.cfg.ElectionTick
}

func (c *cluster) Tick(id uint64) error {
	if !c.tickSafe(id) {
		return refuse("tick %d: node %d has ticked %d time(s) without "+
			"hearing from a leader; one more may reach its randomized "+
			"election timeout (a campaign at a random tick)", id, id,
			c.electionElapsed(id))
	}
	c.nodes[id].rn.Tick()
	c.drain(id)
	return nil
}

// Crash stops node id: its volatile state and the messages queued for it
// are lost; its storage stays.
func (c *cluster) Crash(id uint64) {
	c.nodes[id].rn = nil
	c.queue[id] = nil
}

// Discard loses every message queued for id.
func (c *cluster) Discard(id uint64) { c.queue[id] = nil }

// Restart starts crashed node id over its storage, then drains it.
func (c *cluster) Restart(id uint64) {
	c.start(id)
	c.drain(id)
}

// Heal ends the partition.
func (c *cluster) Heal() { c.group = [maxNodes + 1]int{} }

// Hold makes node id's application slow: its Ready is not taken until
// release, so the steps in between reach raft one after another with
// nothing persisted or sent, as raft's Node steps messages while etcd's
// server has not yet taken the last Ready.
func (c *cluster) Hold(id uint64) error {
	if c.nodes[id].held {
		return refuse("node %d is held already", id)
	}
	c.nodes[id].held = true
	return nil
}

func (c *cluster) Release(id uint64) error {
	if !c.nodes[id].held {
		return refuse("node %d is not held", id)
	}
	c.nodes[id].held = false
	c.drain(id)
	return nil
}

// Compact takes a snapshot of node id's applied state at index and drops
// its storage's log up to it (raft then sends a follower that needs the
// dropped entries a MsgSnap), with the configuration node id had there.
func (c *cluster) Compact(id, index uint64) error {
	n := c.nodes[id]
	applied := n.rn.Status().Applied
	if index > applied {
		return refuse("compact %d %d: node %d has applied only up to %d",
			id, index, id, applied)
	}
	cs, err := c.confState(id, index)
	if err != nil {
		return err
	}
	if _, err := n.storage.CreateSnapshot(index, cs, nil); err != nil {
		return refuse("compact %d %d: %v", id, index, err)
	}
	if err := n.storage.Compact(index); err != nil {
		return refuse("compact %d %d: %v", id, index, err)
	}
	return nil
}

// Partition puts each group on its own side; messages in flight between
// sides are lost.
func (c *cluster) Partition(groups [][]uint64) {
	for g, ids := range groups {
		for _, id := range ids {
			c.group[id] = g
		}
	}
	for to := range c.queue {
		c.queue[to] = slices.DeleteFunc(c.queue[to], func(m *pb.Message) bool {
			return c.group[m.GetFrom()] != c.group[to]
		})
	}
}

// Liveness refuses a step whose acting node (the first id) is crashed or
// not started, and a restart of a live one; steps on the network alone
// run whatever state the nodes are in.
func (c *cluster) Liveness(s lang.Step) error {
	switch s.Word {
	case "pump", "heal", "discard", "drop", "duplicate", "reverse",
		"deliver":
		return nil
	case "partition":
		return c.sides(s.Groups)
	}
	if c.nodes[s.IDs[0]] == nil {
		return refuse("node %d is not in the cluster (add-node starts it)",
			s.IDs[0])
	}
	if c.nodes[s.IDs[0]].removed {
		return refuse("node %d was removed (a node applied its removal)",
			s.IDs[0])
	}
	switch s.Word {
	case "restart":
		if c.nodes[s.IDs[0]].rn != nil {
			return refuse("node %d is not crashed", s.IDs[0])
		}
		return nil
	case "crash", "campaign", "elect":
		// a crash would lose what a held node did not persist, which
		// the harness's storage never models; a campaign's first trace
		// event (BecomeCandidate, after the change) would hide what
		// the node's last handler set after its last event (a granted
		// vote), which only the Ready shows
		if c.nodes[s.IDs[0]].held {
			return refuse("node %d is held: release it first", s.IDs[0])
		}
	}
	if c.nodes[s.IDs[0]].rn == nil {
		return refuse("node %d is crashed", s.IDs[0])
	}
	return nil
}

// Finish drains every held node at the end of a scenario: raft sets
// some state after the last event it traces (a granted vote after its
// response is sent), which only the Ready shows.
func (c *cluster) Finish() {
	for id := uint64(1); id <= maxNodes; id++ {
		if c.nodes[id] != nil && c.nodes[id].held {
			_ = c.Release(id)
		}
	}
}

// replay runs a scenario file; with a step map file, it writes there one
// line per step: the trace events written before it, and its file:line.
func replay(path, stepMap string) {
	cfg, steps := lang.ReadScenario(path)
	var sm *os.File
	if stepMap != "" {
		var err error
		if sm, err = os.Create(stepMap); err != nil {
			lang.Fatal(1, "%v", err)
		}
	}
	c := newCluster(cfg)
	for _, s := range steps {
		if sm != nil {
			fmt.Fprintf(sm, "%d %s\n", traceEvents(), s.Pos)
		}
		if err := lang.Run(c, s); err != nil {
			lang.Fatal(3, "%s: %v", s.Pos, err)
		}
	}
	c.Finish()
	if sm != nil && sm.Close() != nil {
		lang.Fatal(1, "%s: write error", stepMap)
	}
	flushTrace()
}

func main() {
	lang.Main(&lang.Harness{
		Name:         "etcd-harness",
		Nodes:        nodes,
		MaxNodes:     maxNodes,
		New:          func(cfg lang.Config) lang.Cluster { return newCluster(cfg) },
		Replay:       replay,
		StepMap:      true,
		RandomHeader: randomHeader,
		TakeHeader:   takeHeader,
		TraceEvents:  traceEvents,
		FlushTrace:   flushTrace,
	})
}
