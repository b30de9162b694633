// SPDX-License-Identifier: MIT

// Membership: add-node and remove-node propose a raft ConfChange
// (RawNode.ProposeConfChange), and each node applies the committed
// EntryConfChange entries its Ready hands out (RawNode.ApplyConfChange),
// as etcd's raftexample does -- at that Ready, or, under "config
// apply-conf step", only at an apply step, so that a scenario can place
// the configuration switch (and the commit a smaller quorum gives a
// leader there) inside a window another step opened.  A node is stopped
// for good once some node applies its removal, as etcd stops a removed
// member (its peers refuse it, rafthttp's ErrMemberRemoved): left
// running with the configuration it had, it could lead a majority of
// that configuration while the others commit without it, and raft
// panics on a follower's commit beyond its leader's log
// (maybeSendSnapshot).
package main

import (
	"errors"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
	"raft/lang"
)

// confEntry is a committed conf change at its log index.
type confEntry struct {
	index uint64
	cc    *pb.ConfChange
}

// confAt is a configuration a node applied, from the entry at index on.
type confAt struct {
	index uint64
	cs    *pb.ConfState
}

// committed takes the conf changes among the committed entries a Ready
// handed node id: applied now, or kept for an apply step.
func (c *cluster) committed(id uint64, ents []*pb.Entry) {
	n := c.nodes[id]
	for _, e := range ents {
		if e.GetType() != pb.EntryConfChange {
			continue
		}
		cc := &pb.ConfChange{}
		if err := proto.Unmarshal(e.GetData(), cc); err != nil {
			lang.Fatal(1, "node %d: conf change at %d: %v", id, e.GetIndex(), err)
		}
		n.pending = append(n.pending, confEntry{e.GetIndex(), cc})
	}
	if !c.cfg.ApplyByStep {
		c.applyPending(id)
	}
}

// applyPending switches node id to each pending conf change in log order;
// a node removed is stopped (node id too, if it removed itself).
func (c *cluster) applyPending(id uint64) {
	n := c.nodes[id]
	for len(n.pending) > 0 && n.rn != nil {
		p := n.pending[0]
		n.pending = n.pending[1:]
		cc := c.admitted(id, p.cc)
		n.confs = append(n.confs, confAt{p.index, n.rn.ApplyConfChange(cc)})
		if t := cc.GetNodeId(); cc.GetType() == pb.ConfChangeRemoveNode &&
			c.nodes[t] != nil && !c.nodes[t].removed {
			c.Crash(t)
			c.nodes[t].removed, c.nodes[t].held = true, false
		}
	}
	n.pending = nil
}

// admitted is cc as node id applies it: a removal of its last voter,
// which raft cannot apply (confchange: "removed all voters", a panic), as
// etcd's server applies a change its membership refuses -- with NodeID
// None, which changes nothing (etcdserver's applyConfChange).
func (c *cluster) admitted(id uint64, cc *pb.ConfChange) *pb.ConfChange {
	voters := c.voters(id)
	if cc.GetType() != pb.ConfChangeRemoveNode || len(voters) != 1 ||
		!voters[cc.GetNodeId()] {
		return cc
	}
	return &pb.ConfChange{Type: cc.Type, NodeId: new(uint64(raft.None))}
}

// Apply is the step: node id applies the conf changes committed and
// handed out to it, then drains.
func (c *cluster) Apply(id uint64) error {
	if len(c.nodes[id].pending) == 0 {
		return refuse("apply %d: node %d has no committed conf change "+
			"to apply", id, id)
	}
	c.applyPending(id)
	if c.nodes[id].rn != nil {
		c.drain(id)
	}
	return nil
}

// confChange proposes adding or removing node target at node id.  A
// proposal raft drops is its decision (a leader past its
// max-uncommitted-size traces ChangeConf first, raft.go:1344, then drops
// it in appendEntry, raft.go:822), not a refusal.
func (c *cluster) confChange(id uint64, t pb.ConfChangeType, target uint64) error {
	cc := &pb.ConfChange{Type: t.Enum(), NodeId: new(target)}
	err := c.nodes[id].rn.ProposeConfChange(cc)
	if err != nil && !errors.Is(err, raft.ErrProposalDropped) {
		return refuse("%s: %v", cc.GetType(), err)
	}
	c.reportDrop(id, err)
	c.drain(id)
	return nil
}

// confState is node id's configuration at index, for a snapshot there:
// its storage snapshot's, or a later one it applied up to index.  A conf
// change committed at or below index and not yet applied is refused.
func (c *cluster) confState(id, index uint64) (*pb.ConfState, error) {
	n := c.nodes[id]
	for _, p := range n.pending {
		if p.index <= index {
			return nil, refuse("compact %d %d: node %d has not applied "+
				"the conf change at %d (apply %d first)", id, index,
				id, p.index, id)
		}
	}
	last, _ := n.storage.Snapshot()
	cs, at := last.GetMetadata().GetConfState(), last.GetMetadata().GetIndex()
	for _, a := range n.confs {
		if a.index > at && a.index <= index {
			cs = a.cs
		}
	}
	return cs, nil
}

// voters is node id's present configuration, as raft reports it.
func (c *cluster) voters(id uint64) map[uint64]bool {
	ids := map[uint64]bool{}
	for v := range c.nodes[id].rn.Status().Config.Voters.IDs() {
		ids[v] = true
	}
	return ids
}

// AddNode starts node target, which was never started (raft's ids are
// never reused, as etcd's membership refuses a removed member's id), and
// proposes it at node id.
func (c *cluster) AddNode(id, target uint64) error {
	if c.nodes[target] != nil {
		return refuse("add-node %d %d: node %d was started already "+
			"(an added node is a new one)", id, target, target)
	}
	c.join(target)
	c.drain(target)
	return c.confChange(id, pb.ConfChangeAddNode, target)
}

// RemoveNode proposes removing node target at node id.
func (c *cluster) RemoveNode(id, target uint64) error {
	return c.confChange(id, pb.ConfChangeRemoveNode, target)
}

// sides refuses a partition that leaves out a node started or names one
// not started (the parse checked the initial nodes).
func (c *cluster) sides(groups [][]uint64) error {
	var in [maxNodes + 1]bool
	for _, g := range groups {
		for _, id := range g {
			if c.nodes[id] == nil {
				return refuse("partition names node %d, which is not "+
					"in the cluster", id)
			}
			in[id] = true
		}
	}
	for id := uint64(1); id <= maxNodes; id++ {
		if c.nodes[id] != nil && !in[id] {
			return refuse("partition leaves out node %d", id)
		}
	}
	return nil
}
