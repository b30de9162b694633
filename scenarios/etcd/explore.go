// SPDX-License-Identifier: MIT

// What capture etcd --explore's generator (scenarios/raft/lang) may draw
// on etcd's cluster: its header and the steps each state allows.
package main

import (
	"fmt"
	"strconv"

	"go.etcd.io/raft/v3"
	"raft/lang"
)

// randomHeader draws the raft configuration of a new scenario.
func randomHeader(g *lang.Generator) lang.Config {
	ticks := []int{3, 4, 5, 10}
	cfg := lang.Config{
		PreVote:       g.Rng.IntN(2) == 1,
		CheckQuorum:   g.Rng.IntN(2) == 1,
		ElectionTick:  ticks[g.Rng.IntN(len(ticks))],
		HeartbeatTick: 1,
	}
	onOff := map[bool]string{true: "on", false: "off"}
	g.Header("config prevote "+onOff[cfg.PreVote],
		"config checkquorum "+onOff[cfg.CheckQuorum],
		"config election-tick "+strconv.Itoa(cfg.ElectionTick),
		"config heartbeat-tick 1")
	return cfg
}

func (c *cluster) canPropose(id uint64) bool {
	st := c.nodes[id].rn.Status()
	return st.RaftState == raft.StateLeader ||
		(st.RaftState == raft.StateFollower && st.Lead != raft.None &&
			!c.cfg.NoForwarding)
}

// compactOption compacts node id's storage up to what it applied, when
// that is above its last snapshot.
func (c *cluster) compactOption(opts []lang.Option, id uint64) []lang.Option {
	n := c.nodes[id]
	applied := n.rn.Status().Applied
	if len(n.pending) > 0 { // a snapshot only below a conf change not applied
		applied = min(applied, n.pending[0].index-1)
	}
	snap, _ := n.storage.Snapshot()
	if applied <= snap.GetMetadata().GetIndex() {
		return opts
	}
	return append(opts, lang.Option{Line: fmt.Sprintf("compact %d %d", id, applied), Weight: 2})
}

// NodeOptions are the steps node id can take in its state.
func (c *cluster) NodeOptions(g *lang.Generator, opts []lang.Option, id uint64, crashed int) []lang.Option {
	n := c.nodes[id]
	if n.removed {
		return opts
	}
	if n.rn == nil {
		return append(opts, lang.Option{Line: fmt.Sprintf("restart %d", id), Weight: 3})
	}
	a, b := id%nodes+1, (id+1)%nodes+1
	if c.tickSafe(id) {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("tick %d", id), Weight: 4})
	}
	if n.rn.Status().RaftState != raft.StateLeader && !n.held {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("campaign %d", id), Weight: 3},
			lang.Option{Line: fmt.Sprintf("elect %d %d %d", id, a, b), Weight: 1})
	}
	if c.canPropose(id) {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("propose %d %s", id, g.Data()), Weight: 3})
	}
	if n.held {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("release %d", id), Weight: 3})
	} else {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("hold %d", id), Weight: 1})
	}
	if crashed == 0 && !n.held {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("crash %d", id), Weight: 1})
	}
	return c.compactOption(opts, id)
}

// membership reports whether the scenario's header asks for membership
// changes (the random headers never do: a kept scenario's does).
func (c *cluster) membership() bool {
	cfg := c.cfg
	return cfg.ApplyByStep || cfg.MaxUncommitted > 0 || cfg.NoForwarding
}

// ConfOptions are the membership steps, under a membership header: a
// node that can propose adds the first node never started or removes a
// voter it knows; a node with a committed conf change applies it.
func (c *cluster) ConfOptions(g *lang.Generator, opts []lang.Option) []lang.Option {
	if !c.membership() {
		return opts
	}
	next := uint64(0)
	for id := uint64(maxNodes); id > nodes; id-- {
		if c.nodes[id] == nil {
			next = id
		}
	}
	for id := uint64(1); id <= maxNodes; id++ {
		n := c.nodes[id]
		if n == nil || n.rn == nil {
			continue
		}
		if len(n.pending) > 0 {
			opts = append(opts, lang.Option{Line: fmt.Sprintf("apply %d", id), Weight: 3})
		}
		if !c.canPropose(id) {
			continue
		}
		if next != 0 {
			opts = append(opts, lang.Option{Line: fmt.Sprintf("add-node %d %d", id, next), Weight: 1})
		}
		for v := uint64(1); v <= maxNodes; v++ {
			if c.voters(id)[v] {
				opts = append(opts, lang.Option{Line: fmt.Sprintf("remove-node %d %d", id, v), Weight: 1})
			}
		}
	}
	return opts
}

// takeHeader: etcd's harness takes every header.
func takeHeader(cfg lang.Config, lines []string) (lang.Config, []string) {
	return cfg, lines
}
