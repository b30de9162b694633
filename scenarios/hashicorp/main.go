// SPDX-License-Identifier: MIT

// Command hashicorp-harness drives a 3-node cluster of HashiCorp's raft
// (github.com/hashicorp/raft, unmodified) through a scenario file of the
// raft language (scenarios/raft/lang, as etcd's harness does),
// deterministically: the library's in-memory stores, a
// transport of the harness's (transport.go) that queues every RPC until
// a step delivers it, every raft timer an hour long so none fires, and
// each step waited out until no goroutine of raft can move (settle.go).
// docs/hashicorp.md maps each step onto the library's API, and says what
// it refuses.
//
// It prints no raft state of its own: the state in a corpus comes from
// eBPF probes on this process (scenarios/hashicorp/raft.probes).
//
// Usage: hashicorp-harness SCENARIO_FILE; hashicorp-harness -batch
// SCENARIO_FILE... replays each in turn, each on a cluster of its own;
// -generate and -serve are capture hashicorp --explore's (the language's
// generator and server; explore.go: this cluster's options).
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"raft/lang"
)

// nodes is the cluster; the language's ids above it (etcd's add-node)
// are refused here as bad node ids.
const (
	nodes    = 3
	maxNodes = nodes
)

// never is longer than any run: raft's timers armed with it do not fire.
// The heartbeat timeout is twice that, so that a pre-vote campaign can
// lower it (ReloadConfig) and stay above the leader lease it bounds.
const never = time.Hour

const heartbeat = 2 * never

// node is one raft server; r is nil while it is crashed.  Its stores are
// its disk: they survive a crash.
type node struct {
	r     *raft.Raft
	t     *transport
	logs  *raft.InmemStore // log and stable store
	snaps *raft.InmemSnapshotStore
	fsm   fsm
	// compacted is the index of the last compact, whose entry the log
	// keeps (compact says why)
	compacted uint64
}

// cluster holds the nodes and the messages in flight, queued per
// recipient in the order they were sent, and the partition.  mu guards
// the queues and transports: raft's goroutines send while the harness
// delivers.
type cluster struct {
	mu    sync.Mutex
	cfg   lang.Config
	nodes [nodes + 1]*node
	queue [nodes + 1][]*message
	group [nodes + 1]int
}

func refuse(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// fsm is the replicated state machine: raft's entries need one.  Its
// state is the index of the last entry it applied: raft hands it
// commands only (not its no-ops, nor, without a ConfigurationStore, its
// configurations), and a snapshot (Raft.Snapshot, compact) is of that
// index, which a restore (a follower's InstallSnapshot, a restart)
// brings back.
type fsm struct{ applied *atomic.Uint64 }

func (f fsm) Apply(l *raft.Log) any { f.applied.Store(l.Index); return nil }

func (f fsm) Snapshot() (raft.FSMSnapshot, error) {
	return snapshot(f.applied.Load()), nil
}

func (f fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var b [8]byte
	if _, err := io.ReadFull(rc, b[:]); err != nil {
		return err
	}
	f.applied.Store(binary.BigEndian.Uint64(b[:]))
	return nil
}

type snapshot uint64

func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(binary.BigEndian.AppendUint64(nil, uint64(s))); err != nil {
		_ = sink.Cancel()
		return err
	}
	return sink.Close()
}

func (snapshot) Release() {}

// raftConfig: no timer of raft fires within a run (elections are
// started by campaign, heartbeats by tick); no snapshot is taken.
// etcd's PreVote is hashicorp's pre-vote (PreVoteDisabled its negation).
func raftConfig(id uint64, cfg lang.Config) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = serverID(id)
	c.PreVoteDisabled = !cfg.PreVote
	c.HeartbeatTimeout = heartbeat
	c.ElectionTimeout = heartbeat
	c.LeaderLeaseTimeout = never
	c.CommitTimeout = never
	c.SnapshotInterval = never
	c.SnapshotThreshold = 1 << 62
	c.Logger = hclog.NewNullLogger()
	return c
}

func configuration() raft.Configuration {
	var cf raft.Configuration
	for id := uint64(1); id <= nodes; id++ {
		cf.Servers = append(cf.Servers, raft.Server{Suffrage: raft.Voter,
			ID: serverID(id), Address: raft.ServerAddress(serverID(id))})
	}
	return cf
}

// newCluster bootstraps each node's stores with the configuration of
// the three voters (raft's BootstrapCluster: term 1, the configuration
// as entry 1) and starts it.
func newCluster(cfg lang.Config) *cluster {
	c := &cluster{cfg: cfg}
	for id := uint64(1); id <= nodes; id++ {
		n := &node{logs: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore(),
			fsm: fsm{new(atomic.Uint64)}}
		t := &transport{c: c, id: id}
		if err := raft.BootstrapCluster(raftConfig(id, cfg), n.logs, n.logs,
			n.snaps, t, configuration()); err != nil {
			lang.Fatal(1, "node %d: bootstrap: %v", id, err)
		}
		c.nodes[id] = n
		c.start(id)
	}
	return c
}

// start runs node id over its stores (NewRaft reads term, log and
// configuration back), on a transport of its own.
func (c *cluster) start(id uint64) {
	n := c.nodes[id]
	t := &transport{c: c, id: id, consumer: make(chan raft.RPC)}
	n.fsm.applied.Store(0) // a restart's FSM is new: NewRaft restores it
	r, err := raft.NewRaft(raftConfig(id, c.cfg), n.fsm, n.logs, n.logs, n.snaps, t)
	if err != nil {
		lang.Fatal(1, "node %d: %v", id, err)
	}
	r.RegisterObserver(peerObserver())
	c.mu.Lock()
	n.r, n.t, t.r = r, t, r
	c.mu.Unlock()
	settle()
}

// route queues m for its recipient, unless the network loses it: the
// recipient is crashed or on the other side of a partition.  Holds mu.
func (c *cluster) route(m *message) {
	if c.nodes[m.to].r == nil || c.group[m.to] != c.group[m.from] {
		c.lose(m)
		return
	}
	c.queue[m.to] = append(c.queue[m.to], m)
}

// lose answers the call a lost message belongs to with errLost.
func (c *cluster) lose(m *message) {
	m.call.answer(nil, errLost)
}

// find is the position in to's queue of the first message from, or -1.
func (c *cluster) find(to, from uint64) int {
	return slices.IndexFunc(c.queue[to], func(m *message) bool {
		return m.from == from
	})
}

// take removes and returns the first message from queued for to.
func (c *cluster) take(to, from uint64) (*message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.find(to, from)
	if i < 0 {
		return nil, refuse("no message from %d queued for %d", from, to)
	}
	m := c.queue[to][i]
	c.queue[to] = slices.Delete(c.queue[to], i, i+1)
	return m, nil
}

// handle hands request m to node to's raft and queues its answer back.
func (c *cluster) handle(to uint64, m *message) {
	resp := make(chan raft.RPCResponse, 1)
	c.nodes[to].t.consumer <- raft.RPC{Command: m.req,
		Reader: bytes.NewReader(m.data), RespChan: resp}
	r := <-resp
	c.mu.Lock()
	c.route(&message{from: to, to: m.from, call: m.call, response: true,
		resp: r.Response, err: r.Error})
	c.mu.Unlock()
}

// deliverOne delivers the first message from queued for to: a request
// to to's raft, an answer to the call it answers; then waits the cluster
// out.
func (c *cluster) DeliverOne(to, from uint64) error {
	m, err := c.take(to, from)
	if err != nil {
		return err
	}
	if m.response {
		c.mu.Lock()
		m.call.answer(m.resp, m.err)
		c.mu.Unlock()
	} else {
		c.handle(to, m)
	}
	settle()
	return nil
}

func (c *cluster) Deliver(to, from uint64) {
	for {
		c.mu.Lock()
		more := c.find(to, from) >= 0
		c.mu.Unlock()
		if !more {
			return
		}
		_ = c.DeliverOne(to, from)
	}
}

// duplicate queues a copy of the first request from to to right after
// it; the call is answered once (the second answer is lost).  An answer
// cannot be duplicated: a call has one.
func (c *cluster) Duplicate(to, from uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.find(to, from)
	if i < 0 {
		return refuse("no message from %d queued for %d", from, to)
	}
	m := c.queue[to][i]
	if m.response {
		return refuse("the first message from %d queued for %d is an RPC's "+
			"answer: hashicorp's calls are answered once", from, to)
	}
	dup := *m
	c.queue[to] = slices.Insert(c.queue[to], i+1, &dup)
	return nil
}

func (c *cluster) Reverse(to, from uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.queue[to]
	var at []int
	for i, m := range q {
		if m.from == from {
			at = append(at, i)
		}
	}
	for i, j := 0, len(at)-1; i < j; i, j = i+1, j-1 {
		q[at[i]], q[at[j]] = q[at[j]], q[at[i]]
	}
}

// Discard loses every message queued for id, then waits the cluster out.
func (c *cluster) Discard(id uint64) {
	c.mu.Lock()
	for _, m := range c.queue[id] {
		c.lose(m)
	}
	c.queue[id] = nil
	c.mu.Unlock()
	settle()
}

// Drop loses the first message from queued for to, then waits the
// cluster out.
func (c *cluster) Drop(to, from uint64) error {
	m, err := c.take(to, from)
	if err == nil {
		c.mu.Lock()
		c.lose(m)
		c.mu.Unlock()
		settle()
	}
	return err
}

// queued says whether a message from from is queued for to; queuedFor,
// whether any is (the generator's view of the network).
func (c *cluster) Queued(to, from uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.find(to, from) >= 0
}

func (c *cluster) QueuedFor(to uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue[to]) > 0
}

// duplicable: the first message from from queued for to is a request
// (duplicate refuses an answer).
func (c *cluster) Duplicable(to, from uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.queue[to][c.find(to, from)].response
}

func (c *cluster) Partitioned() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.group != [nodes + 1]int{}
}

// started: every node is, from newCluster on (no add-node here).
func (c *cluster) Started(id uint64) bool { return true }

func (c *cluster) Crashed(id uint64) bool { return c.nodes[id].r == nil }

func (c *cluster) Pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for to := 1; to <= nodes; to++ {
		if len(c.queue[to]) > 0 {
			return true
		}
	}
	return false
}

// campaign starts an election at once.  Without pre-vote, the one way
// hashicorp's raft offers: a TimeoutNow RPC (what a leader sends the
// target of a leadership transfer), handed to the node as if from the
// network.  Its vote requests carry LeadershipTransfer, so voters grant
// them even while they know a leader (as etcd's voters do without
// CheckQuorum).  With pre-vote, a heartbeat timeout (preCampaign):
// TimeoutNow skips pre-vote by design.
func (c *cluster) Campaign(id uint64) error {
	switch c.nodes[id].r.State() {
	case raft.Leader:
		return refuse("campaign %d: node %d is the leader (hashicorp's "+
			"TimeoutNow would make it a candidate; etcd's leader ignores a campaign)", id, id)
	case raft.Candidate:
		return refuse("campaign %d: node %d is already a candidate "+
			"(hashicorp starts a new election only at its election timeout)", id, id)
	}
	if c.cfg.PreVote {
		return c.preCampaign(id)
	}
	if m := c.termTaken(id); m != 0 {
		return refuse("campaign %d: node %d is at term %d, which node %d's "+
			"TimeoutNow would campaign in: a leadership transfer into a term "+
			"that has or may have a leader is what hashicorp's raft never "+
			"makes (its leader sends TimeoutNow, then steps down), and in it "+
			"a transfer candidate keeps its candidacy against the leader of "+
			"its term (appendEntries, raft.go:1480 of v1.8.0)",
			id, m, c.nodes[m].r.CurrentTerm(), id)
	}
	resp := make(chan raft.RPCResponse, 1)
	req := &raft.TimeoutNowRequest{RPCHeader: raft.RPCHeader{
		ProtocolVersion: raft.ProtocolVersionMax}}
	c.nodes[id].t.consumer <- raft.RPC{Command: req, RespChan: resp}
	<-resp
	settle()
	return nil
}

// termTaken is a running node other than id at the term id's campaign
// would start, or past it (a node that may lead that term, or has
// heard of one), or 0.  Without pre-vote every candidate is a
// TimeoutNow's, whose flag (candidateFromLeadershipTransfer) keeps it a
// candidate when the leader of its term appends to it: a transfer to a
// node behind nobody never meets one.
func (c *cluster) termTaken(id uint64) uint64 {
	next := c.nodes[id].r.CurrentTerm() + 1
	for m := uint64(1); m <= nodes; m++ {
		r := c.nodes[m].r
		if m != id && r != nil && r.CurrentTerm() >= next {
			return m
		}
	}
	return 0
}

// preCampaign makes follower id's heartbeat time out now, the path on
// which hashicorp's raft pre-votes (runFollower, then runCandidate's
// preElectSelf): ReloadConfig with a lower heartbeat timeout resets the
// follower's timer to fire at once, then the timeout is raised back.
// The follower campaigns only if it has not heard from a leader within
// the timeout, measured on the clock from its last contact: a node that
// never heard from one (since it started) always does; one that did
// would not within any timeout the leader lease allows, so the step is
// refused.
func (c *cluster) preCampaign(id uint64) error {
	r := c.nodes[id].r
	if !r.LastContact().IsZero() {
		return refuse("campaign %d with prevote on: node %d has heard from a "+
			"leader, and hashicorp's raft pre-votes only at a heartbeat "+
			"timeout measured from that contact (its immediate election, "+
			"TimeoutNow, skips pre-vote: raft.go:297 of v1.8.0)", id, id)
	}
	rc := r.ReloadableConfig()
	rc.HeartbeatTimeout = heartbeat - time.Second
	c.reload(id, rc)
	for deadline := time.Now().Add(10 * time.Second); r.State() != raft.Candidate; {
		if time.Now().After(deadline) {
			lang.Fatal(1, "node %d: no heartbeat timeout after ReloadConfig", id)
		}
		time.Sleep(time.Millisecond)
	}
	settle()
	rc.HeartbeatTimeout = heartbeat
	c.reload(id, rc)
	return nil
}

// propose hands data to the leader's Apply; a follower's Apply answers
// ErrNotLeader (hashicorp forwards nothing).
func (c *cluster) Propose(id uint64, data string) error {
	if c.nodes[id].r.State() != raft.Leader {
		return refuse("propose %d: node %d is not the leader (hashicorp's "+
			"Apply answers ErrNotLeader: it does not forward a proposal)", id, id)
	}
	c.nodes[id].r.Apply([]byte(data), 0)
	settle()
	return nil
}

// Tick: a leader's heartbeat round, which VerifyLeader sends at once to
// every follower (etcd's leader sends one at HeartbeatTick); a
// follower's or candidate's tick moves no timer of hashicorp's (they are
// the harness's hour), so nothing happens.  Never refused.
func (c *cluster) Tick(id uint64) error {
	if c.nodes[id].r.State() == raft.Leader {
		c.nodes[id].r.VerifyLeader()
		settle()
	}
	return nil
}

// Hold and Release: refused, as is what has no Ready.
func (c *cluster) Hold(id uint64) error    { return noReady("hold") }
func (c *cluster) Release(id uint64) error { return noReady("release") }

func noReady(word string) error {
	return refuse("%s: hashicorp's raft persists and sends in its own "+
		"goroutines as it steps; it has no Ready a harness could leave "+
		"untaken", word)
}

// AddNode, RemoveNode, Apply: refused, membership is not driven here.
func (c *cluster) AddNode(id, node uint64) error    { return noMembership("add-node") }
func (c *cluster) RemoveNode(id, node uint64) error { return noMembership("remove-node") }
func (c *cluster) Apply(id uint64) error            { return noMembership("apply") }

func noMembership(word string) error {
	return refuse("%s: not on hashicorp's raft here: its membership "+
		"changes (AddVoter, RemoveServer) are not driven yet", word)
}

// Crash shuts node id down: its volatile state and the messages queued
// for it are lost, its calls in flight answered with errLost; its stores
// stay.
func (c *cluster) Crash(id uint64) {
	n := c.nodes[id]
	c.mu.Lock()
	n.t.dead = true
	for to := range c.queue {
		for _, m := range c.queue[to] {
			if m.call.caller == n.t {
				c.lose(m)
			}
		}
	}
	for _, m := range c.queue[id] {
		c.lose(m)
	}
	c.queue[id] = nil
	c.mu.Unlock()
	if err := n.r.Shutdown().Error(); err != nil {
		lang.Fatal(1, "node %d: shutdown: %v", id, err)
	}
	c.mu.Lock()
	n.r = nil
	c.mu.Unlock()
	settle()
}

// compact is etcd's "compact N I" on hashicorp's raft: a snapshot of
// node id that drops its log up to index, as etcd's drops it.  The
// snapshot (Raft.Snapshot) is of what the FSM applied, its last command
// (settle let it catch up), which may be above index: etcd's is at
// index.  hashicorp keeps TrailingLogs entries behind its snapshot
// (compactLogs drops up to min(snapshot, last - TrailingLogs)), so the
// step sets TrailingLogs for the snapshot, then back.  The entry at
// index stays, as etcd's MemoryStorage keeps the entry it compacted to
// (its term): a hashicorp follower matches an append's previous entry in
// its log only (appendEntries, raft.go:1494 of v1.8.0), so one whose
// entry at index went, with entries after it, rejected every append
// after index as missing its previous entry, and a leader whose log was
// dropped to index too answered each rejection with its snapshot, which
// did not bring the entry back: a loop of append, rejection, snapshot
// that never settled (docs/hashicorp.md).  Refused, as etcd's is, when
// index is beyond what the node (its FSM) applied or not above what its
// log dropped already; a leader then sends a follower that needs a
// dropped entry its snapshot.
func (c *cluster) Compact(id, index uint64) error {
	r, logs := c.nodes[id].r, c.nodes[id].logs
	if applied := c.nodes[id].fsm.applied.Load(); index > applied {
		return refuse("compact %d %d: node %d's FSM has applied only up to "+
			"%d, and hashicorp snapshots its FSM (which is handed commands, "+
			"not the no-ops or configurations also in the log)",
			id, index, id, applied)
	}
	if dropped := c.dropped(id); index <= dropped {
		return refuse("compact %d %d: node %d's log is dropped up to %d already",
			id, index, id, dropped)
	}
	last, err := logs.LastIndex()
	if err != nil {
		lang.Fatal(1, "node %d: %v", id, err)
	}
	rc := r.ReloadableConfig()
	trailing := rc.TrailingLogs
	rc.TrailingLogs = last - index + 1
	c.reload(id, rc)
	if err := r.Snapshot().Error(); err != nil {
		lang.Fatal(1, "node %d: snapshot: %v", id, err)
	}
	rc.TrailingLogs = trailing
	c.reload(id, rc)
	c.nodes[id].compacted = index
	settle()
	return nil
}

// dropped is the index node id's log is dropped up to, in etcd's terms:
// before its first entry, or its last compact's (whose entry it keeps),
// or, when its log is empty (a follower's after a snapshot), its
// snapshot's.
func (c *cluster) dropped(id uint64) uint64 {
	n := c.nodes[id]
	first, err := n.logs.FirstIndex()
	if err != nil {
		lang.Fatal(1, "node %d: %v", id, err)
	}
	if first > 0 {
		return max(first-1, n.compacted)
	}
	snaps, err := n.snaps.List()
	if err != nil {
		lang.Fatal(1, "node %d: %v", id, err)
	}
	if len(snaps) == 0 {
		return 0
	}
	return snaps[0].Index
}

// reload sets node id's reloadable configuration.
func (c *cluster) reload(id uint64, rc raft.ReloadableConfig) {
	if err := c.nodes[id].r.ReloadConfig(rc); err != nil {
		lang.Fatal(1, "node %d: %v", id, err)
	}
}

// Partition puts each group on its own side; messages in flight between
// sides are lost; then waits the cluster out.
func (c *cluster) Partition(groups [][]uint64) {
	c.partition(groups)
	settle()
}

func (c *cluster) partition(groups [][]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for g, ids := range groups {
		for _, id := range ids {
			c.group[id] = g
		}
	}
	for to := range c.queue {
		c.queue[to] = slices.DeleteFunc(c.queue[to], func(m *message) bool {
			lost := c.group[m.from] != c.group[to]
			if lost {
				c.lose(m)
			}
			return lost
		})
	}
}

// Restart starts crashed node id over its stores.
func (c *cluster) Restart(id uint64) { c.start(id) }

// Heal ends the partition.
func (c *cluster) Heal() {
	c.mu.Lock()
	c.group = [nodes + 1]int{}
	c.mu.Unlock()
}

// Liveness refuses a step whose acting node is crashed, and a restart of
// a live one; steps on the network alone run whatever state the nodes
// are in.
func (c *cluster) Liveness(s lang.Step) error {
	switch s.Word {
	case "pump", "heal", "partition", "discard", "drop", "duplicate",
		"reverse", "deliver":
		return nil
	case "restart":
		if c.nodes[s.IDs[0]].r != nil {
			return refuse("node %d is not crashed", s.IDs[0])
		}
		return nil
	}
	if c.nodes[s.IDs[0]].r == nil {
		return refuse("node %d is crashed", s.IDs[0])
	}
	return nil
}

// headerRefusal refuses a header line asking for what hashicorp's raft
// cannot be set to here: CheckQuorum (hashicorp's leader lease,
// LeaderLeaseTimeout, steps a leader down on a timer of its own, not at
// the election-tick ticks a scenario gives it), a heartbeat other than
// every tick (a leader's tick is one heartbeat round), membership
// (apply-conf step, max-uncommitted-size).  PreVote is hashicorp's
// (raftConfig); election-tick is taken: it only bounds a follower's
// ticks, which move no timer of hashicorp's; so is forwarding off: a
// follower here never forwards (propose is refused there).
func headerRefusal(path string, cfg lang.Config) {
	if !cfg.CheckQuorum && cfg.HeartbeatTick == 1 &&
		cfg.MaxUncommitted == 0 && !cfg.ApplyByStep {
		return
	}
	data, _ := os.ReadFile(path)
	for i, line := range strings.Split(string(data), "\n") {
		text, _, _ := strings.Cut(line, "#")
		f := strings.Fields(text)
		if len(f) != 3 || f[0] != "config" {
			continue
		}
		why := map[string]string{
			"checkquorum on": "hashicorp's leader lease (LeaderLeaseTimeout, " +
				"raft.go:678 and :935 of v1.8.0) steps a leader down on a timer, " +
				"not at election-tick ticks",
			"apply-conf step": "membership steps are not driven here",
		}[f[1]+" "+f[2]]
		if f[1] == "max-uncommitted-size" {
			why = "hashicorp's raft has no limit on uncommitted entries"
		}
		if f[1] == "heartbeat-tick" && f[2] != "1" {
			why = "a leader's tick is one heartbeat round (VerifyLeader)"
		}
		if why != "" {
			lang.Fatal(3, "%s:%d: %s: not on hashicorp's raft here: %s",
				path, i+1, strings.Join(f, " "), why)
		}
	}
}

// Finish shuts down every node still running at the end of a scenario.
func (c *cluster) Finish() {
	for id := uint64(1); id <= nodes; id++ {
		if c.nodes[id].r != nil {
			c.Crash(id)
		}
	}
}

// replay runs a scenario file on a fresh cluster, then shuts it down
// (also when a refused step ends a served try).  A step map has nothing
// to count here (the probes read the state, traceEvents), so none is
// written: the explorer reads none of a probed harness.
func replay(path, _ string) {
	cfg, steps := lang.ReadScenario(path)
	headerRefusal(path, cfg)
	c := newCluster(cfg)
	defer c.Finish()
	for _, s := range steps {
		if err := lang.Run(c, s); err != nil {
			lang.Fatal(3, "%s: %v", s.Pos, err)
		}
	}
}

func main() {
	lang.Main(&lang.Harness{
		Name:         "hashicorp-harness",
		Nodes:        nodes,
		MaxNodes:     maxNodes,
		New:          func(cfg lang.Config) lang.Cluster { return newCluster(cfg) },
		Replay:       replay,
		RandomHeader: randomHeader,
		TakeHeader:   takeHeader,
		TraceEvents:  traceEvents,
		FlushTrace:   flushTrace,
	})
}
