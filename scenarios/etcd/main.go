// SPDX-License-Identifier: MIT

// Command etcd-harness drives a 3-node etcd raft cluster through one scenario
// file, deterministically: RawNode over MemoryStorage, messages delivered by
// hand, explicit Campaign, no goroutines of its own, no randomness that
// matters (ticks only where the scenario says), and every node's Ready
// drained after each step so that one step's raft activity is contiguous.
//
// It prints no raft state of its own: the state in a corpus comes from eBPF
// probes on this process, or (built with -tags with_tla) from upstream's
// TraceLogger hook, whose events tracing.go writes to stdout.
//
// Usage: etcd-harness SCENARIO_FILE
package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

const nodes = 3

type node struct {
	rn      *raft.RawNode
	storage *raft.MemoryStorage
}

// cluster holds the nodes and the messages in flight, queued per recipient
// in the order they were sent.
type cluster struct {
	nodes [nodes + 1]*node
	queue [nodes + 1][]*pb.Message
}

func newCluster() *cluster {
	c := &cluster{}
	logger := &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)}
	for id := uint64(1); id <= nodes; id++ {
		st := raft.NewMemoryStorage()
		// A bootstrap snapshot at index 0 that only carries the
		// configuration: every node starts knowing peers 1, 2, 3
		// with an empty log.
		snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
			ConfState: &pb.ConfState{Voters: []uint64{1, 2, 3}},
		}}
		if err := st.ApplySnapshot(snap); err != nil {
			fatal(1, "bootstrap snapshot: %v", err)
		}
		cfg := &raft.Config{
			ID:              id,
			ElectionTick:    10,
			HeartbeatTick:   1,
			Storage:         st,
			MaxSizePerMsg:   1 << 20,
			MaxInflightMsgs: 256,
			Logger:          logger,
		}
		setTraceLogger(cfg)
		rn, err := raft.NewRawNode(cfg)
		if err != nil {
			fatal(1, "node %d: %v", id, err)
		}
		c.nodes[id] = &node{rn: rn, storage: st}
	}
	return c
}

// drain runs node id's Ready loop to quiescence: persist entries and hard
// state, queue outgoing messages per recipient, Advance.
func (c *cluster) drain(id uint64) {
	n := c.nodes[id]
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if rd.HardState != nil && !raft.IsEmptyHardState(rd.HardState) {
			if err := n.storage.SetHardState(rd.HardState); err != nil {
				fatal(1, "node %d: set hard state: %v", id, err)
			}
		}
		if err := n.storage.Append(rd.Entries); err != nil {
			fatal(1, "node %d: append: %v", id, err)
		}
		for _, m := range rd.Messages {
			to := m.GetTo()
			c.queue[to] = append(c.queue[to], m)
		}
		n.rn.Advance(rd)
	}
}

// deliver steps every message queued for to that from sent, one at a time
// in queue order, draining to after each; other senders' messages stay.
func (c *cluster) deliver(to, from uint64) {
	for {
		i := 0
		for i < len(c.queue[to]) && c.queue[to][i].GetFrom() != from {
			i++
		}
		if i == len(c.queue[to]) {
			return
		}
		m := c.queue[to][i]
		c.queue[to] = append(c.queue[to][:i:i], c.queue[to][i+1:]...)
		// A rejected step (e.g. a stale message) is raft's decision,
		// not a harness failure.
		_ = c.nodes[to].rn.Step(m)
		c.drain(to)
	}
}

func (c *cluster) pending() bool {
	for to := 1; to <= nodes; to++ {
		if len(c.queue[to]) > 0 {
			return true
		}
	}
	return false
}

func (c *cluster) pump() {
	for c.pending() {
		for to := uint64(1); to <= nodes; to++ {
			for from := uint64(1); from <= nodes; from++ {
				c.deliver(to, from)
			}
		}
	}
}

func (c *cluster) elect(n, a, b uint64) {
	c.campaign(n)
	c.deliver(a, n)
	c.deliver(b, n)
	c.deliver(n, a)
	c.deliver(n, b)
	c.pump()
}

func (c *cluster) campaign(id uint64) {
	if err := c.nodes[id].rn.Campaign(); err != nil {
		fatal(1, "campaign %d: %v", id, err)
	}
	c.drain(id)
}

func (c *cluster) propose(id uint64, data string) {
	if err := c.nodes[id].rn.Propose([]byte(data)); err != nil {
		fatal(1, "propose %d: %v", id, err)
	}
	c.drain(id)
}

func (c *cluster) tick(id uint64) {
	c.nodes[id].rn.Tick()
	c.drain(id)
}

func fatal(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "etcd-harness: "+format+"\n", args...)
	os.Exit(code)
}

// step is one parsed scenario line.
type step struct {
	word string
	ids  []uint64
	data string
}

// parseID reads a node id 1..3.
func parseID(s string) (uint64, bool) {
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil && id >= 1 && id <= nodes
}

// parseLink reads "T<-F".
func parseLink(s string) ([]uint64, bool) {
	t, f, ok := strings.Cut(s, "<-")
	if !ok {
		return nil, false
	}
	to, ok1 := parseID(t)
	from, ok2 := parseID(f)
	return []uint64{to, from}, ok1 && ok2 && to != from
}

// arity is the number of words each step takes after its name.
var arity = map[string]int{
	"campaign": 1, "propose": 2, "tick": 1, "deliver": 1,
	"discard": 1, "pump": 0, "elect": 3,
}

func parseStep(fields []string) (step, string) {
	s := step{word: fields[0]}
	n, known := arity[s.word]
	if !known {
		return s, "unknown step " + strconv.Quote(s.word)
	}
	if len(fields)-1 != n {
		return s, fmt.Sprintf("%s takes %d argument(s)", s.word, n)
	}
	switch s.word {
	case "deliver":
		ids, ok := parseLink(fields[1])
		if !ok {
			return s, "expected T<-F with distinct nodes 1..3"
		}
		s.ids = ids
		return s, ""
	case "propose":
		s.data = fields[2]
		fields = fields[:2]
	}
	for _, f := range fields[1:] {
		id, ok := parseID(f)
		if !ok {
			return s, "bad node id " + strconv.Quote(f)
		}
		s.ids = append(s.ids, id)
	}
	return s, ""
}

func readScenario(path string) []step {
	f, err := os.Open(path)
	if err != nil {
		fatal(3, "%v", err)
	}
	defer f.Close()
	var steps []step
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		s, bad := parseStep(fields)
		if bad != "" {
			fatal(3, "%s:%d: %s", path, line, bad)
		}
		steps = append(steps, s)
	}
	if err := sc.Err(); err != nil {
		fatal(3, "%s: %v", path, err)
	}
	return steps
}

func (c *cluster) run(s step) {
	switch s.word {
	case "campaign":
		c.campaign(s.ids[0])
	case "propose":
		c.propose(s.ids[0], s.data)
	case "tick":
		c.tick(s.ids[0])
	case "deliver":
		c.deliver(s.ids[0], s.ids[1])
	case "discard":
		c.queue[s.ids[0]] = nil
	case "pump":
		c.pump()
	case "elect":
		c.elect(s.ids[0], s.ids[1], s.ids[2])
	}
}

func main() {
	if len(os.Args) != 2 {
		fatal(2, "usage: etcd-harness SCENARIO_FILE")
	}
	steps := readScenario(os.Args[1])
	c := newCluster()
	for _, s := range steps {
		c.run(s)
	}
	flushTrace()
}
