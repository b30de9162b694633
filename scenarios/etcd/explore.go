// SPDX-License-Identifier: MIT

// What capture etcd --explore's generator (generate.go) may draw on
// etcd's cluster: its header and the steps each state allows.
package main

import (
	"fmt"
	"strconv"

	"go.etcd.io/raft/v3"
)

// randomHeader draws the raft configuration of a new scenario.
func (g *generator) randomHeader() config {
	ticks := []int{3, 4, 5, 10}
	cfg := config{
		preVote:       g.rng.IntN(2) == 1,
		checkQuorum:   g.rng.IntN(2) == 1,
		electionTick:  ticks[g.rng.IntN(len(ticks))],
		heartbeatTick: 1,
	}
	onOff := map[bool]string{true: "on", false: "off"}
	g.lines = append(g.lines,
		"config prevote "+onOff[cfg.preVote],
		"config checkquorum "+onOff[cfg.checkQuorum],
		"config election-tick "+strconv.Itoa(cfg.electionTick),
		"config heartbeat-tick 1")
	return cfg
}

func (g *generator) canPropose(id uint64) bool {
	st := g.c.nodes[id].rn.Status()
	return st.RaftState == raft.StateLeader ||
		(st.RaftState == raft.StateFollower && st.Lead != raft.None &&
			!g.c.cfg.noForwarding)
}

// compactOption compacts node id's storage up to what it applied, when
// that is above its last snapshot.
func (g *generator) compactOption(opts []option, id uint64) []option {
	n := g.c.nodes[id]
	applied := n.rn.Status().Applied
	if len(n.pending) > 0 { // a snapshot only below a conf change not applied
		applied = min(applied, n.pending[0].index-1)
	}
	snap, _ := n.storage.Snapshot()
	if applied <= snap.GetMetadata().GetIndex() {
		return opts
	}
	return append(opts, option{fmt.Sprintf("compact %d %d", id, applied), 2})
}

// nodeOptions are the steps node id can take in its state.
func (g *generator) nodeOptions(opts []option, id uint64, crashed int) []option {
	n := g.c.nodes[id]
	if n.removed {
		return opts
	}
	if n.rn == nil {
		return append(opts, option{fmt.Sprintf("restart %d", id), 3})
	}
	a, b := id%nodes+1, (id+1)%nodes+1
	if g.c.tickSafe(id) {
		opts = append(opts, option{fmt.Sprintf("tick %d", id), 4})
	}
	if n.rn.Status().RaftState != raft.StateLeader && !n.held {
		opts = append(opts, option{fmt.Sprintf("campaign %d", id), 3},
			option{fmt.Sprintf("elect %d %d %d", id, a, b), 1})
	}
	if g.canPropose(id) {
		g.data++
		opts = append(opts, option{fmt.Sprintf("propose %d v%d", id, g.data), 3})
	}
	if n.held {
		opts = append(opts, option{fmt.Sprintf("release %d", id), 3})
	} else {
		opts = append(opts, option{fmt.Sprintf("hold %d", id), 1})
	}
	if crashed == 0 && !n.held {
		opts = append(opts, option{fmt.Sprintf("crash %d", id), 1})
	}
	return g.compactOption(opts, id)
}

// membership reports whether the scenario's header asks for membership
// changes (the random headers never do: a kept scenario's does).
func (g *generator) membership() bool {
	cfg := g.c.cfg
	return cfg.applyByStep || cfg.maxUncommitted > 0 || cfg.noForwarding
}

// confOptions are the membership steps, under a membership header: a
// node that can propose adds the first node never started or removes a
// voter it knows; a node with a committed conf change applies it.
func (g *generator) confOptions(opts []option) []option {
	if !g.membership() {
		return opts
	}
	next := uint64(0)
	for id := uint64(maxNodes); id > nodes; id-- {
		if g.c.nodes[id] == nil {
			next = id
		}
	}
	for id := uint64(1); id <= maxNodes; id++ {
		n := g.c.nodes[id]
		if n == nil || n.rn == nil {
			continue
		}
		if len(n.pending) > 0 {
			opts = append(opts, option{fmt.Sprintf("apply %d", id), 3})
		}
		if !g.canPropose(id) {
			continue
		}
		if next != 0 {
			opts = append(opts, option{fmt.Sprintf("add-node %d %d", id, next), 1})
		}
		for v := uint64(1); v <= maxNodes; v++ {
			if g.c.voters(id)[v] {
				opts = append(opts, option{fmt.Sprintf("remove-node %d %d", id, v), 1})
			}
		}
	}
	return opts
}

// takeHeader: etcd's harness takes every header.
func takeHeader(cfg config, lines []string) (config, []string) {
	return cfg, lines
}
