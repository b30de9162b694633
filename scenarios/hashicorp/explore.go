// SPDX-License-Identifier: MIT

// What capture hashicorp --explore's generator (generate.go, etcd's)
// may draw on hashicorp's cluster: the steps main.go takes in each state,
// never one it refuses (the search dies on a refused generated step).
// The same language as etcd's, drawn from this cluster's state, not
// etcd's: no hold, release or membership step; a duplicate of a request
// only; a proposal to the leader only; a campaign of a follower (with
// pre-vote, of one that never heard from a leader); a tick of a leader
// (a follower's moves nothing); a compaction up to what the node's FSM
// applied.
package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/raft"
)

// probed: the probes read the state, so no step map counts events.
func traceEvents() int { return 0 }

func flushTrace() {}

// randomHeader draws the raft configuration of a new scenario: what
// headerRefusal takes (pre-vote on or off; CheckQuorum off, a heartbeat
// every tick).
func (g *generator) randomHeader() config {
	ticks := []int{3, 4, 5, 10}
	cfg := config{
		preVote:       g.rng.IntN(2) == 1,
		electionTick:  ticks[g.rng.IntN(len(ticks))],
		heartbeatTick: 1,
	}
	onOff := map[bool]string{true: "on", false: "off"}
	g.lines = append(g.lines,
		"config prevote "+onOff[cfg.preVote],
		"config checkquorum off",
		"config election-tick "+strconv.Itoa(cfg.electionTick),
		"config heartbeat-tick 1")
	return cfg
}

// takeHeader is a mutated scenario's header as this harness takes it
// (the explorer's scripted moves write etcd's): CheckQuorum off, a
// heartbeat every tick, no uncommitted-size limit and conf changes
// applied at the Ready where it asked otherwise (headerRefusal's
// refusals), the rest as it was.
func takeHeader(cfg config, lines []string) (config, []string) {
	cfg.checkQuorum, cfg.heartbeatTick = false, 1
	cfg.maxUncommitted, cfg.applyByStep = 0, false
	var out []string
	for _, l := range lines {
		switch {
		case l == "config checkquorum on":
			l = "config checkquorum off"
		case strings.HasPrefix(l, "config heartbeat-tick "):
			l = "config heartbeat-tick 1"
		case l == "config apply-conf step":
			l = "config apply-conf ready"
		case strings.HasPrefix(l, "config max-uncommitted-size "):
			continue
		}
		out = append(out, l)
	}
	return cfg, out
}

// confOptions: none; hashicorp's membership changes are not driven here
// (add-node, remove-node and apply are refused at their line).
func (g *generator) confOptions(opts []option) []option { return opts }

// canCampaign: campaign refuses a leader and a candidate, with pre-vote
// a node that has heard from a leader, without it one behind another
// node's term (main.go).
func (g *generator) canCampaign(id uint64) bool {
	r := g.c.nodes[id].r
	s := r.State()
	if s == raft.Leader || s == raft.Candidate {
		return false
	}
	if g.c.cfg.preVote {
		return r.LastContact().IsZero()
	}
	return g.c.termTaken(id) == 0
}

// nodeOptions are the steps node id can take in its state.
func (g *generator) nodeOptions(opts []option, id uint64, crashed int) []option {
	r := g.c.nodes[id].r
	if r == nil {
		return append(opts, option{fmt.Sprintf("restart %d", id), 3})
	}
	a, b := id%nodes+1, (id+1)%nodes+1
	leader := r.State() == raft.Leader
	if leader {
		g.data++
		opts = append(opts, option{fmt.Sprintf("tick %d", id), 4},
			option{fmt.Sprintf("propose %d v%d", id, g.data), 3})
	}
	if g.canCampaign(id) {
		opts = append(opts, option{fmt.Sprintf("campaign %d", id), 3},
			option{fmt.Sprintf("elect %d %d %d", id, a, b), 1})
	}
	if crashed == 0 {
		opts = append(opts, option{fmt.Sprintf("crash %d", id), 1})
	}
	return g.compactOption(opts, id)
}

// compactOption compacts node id's log up to what its FSM applied, when
// that is not dropped already (compact's refusals, main.go).
func (g *generator) compactOption(opts []option, id uint64) []option {
	applied := g.c.nodes[id].fsm.applied.Load()
	if applied <= g.c.dropped(id) {
		return opts
	}
	return append(opts, option{fmt.Sprintf("compact %d %d", id, applied), 2})
}
