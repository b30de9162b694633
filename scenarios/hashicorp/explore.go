// SPDX-License-Identifier: MIT

// What capture hashicorp --explore's generator (scenarios/raft/lang) may
// draw on hashicorp's cluster: the steps main.go takes in each state,
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
	"raft/lang"
)

// probed: the probes read the state, so no step map counts events.
func traceEvents() int { return 0 }

func flushTrace() {}

// randomHeader draws the raft configuration of a new scenario: what
// headerRefusal takes (pre-vote on or off; CheckQuorum off, a heartbeat
// every tick).
func randomHeader(g *lang.Generator) lang.Config {
	ticks := []int{3, 4, 5, 10}
	cfg := lang.Config{
		PreVote:       g.Rng.IntN(2) == 1,
		ElectionTick:  ticks[g.Rng.IntN(len(ticks))],
		HeartbeatTick: 1,
	}
	onOff := map[bool]string{true: "on", false: "off"}
	g.Header("config prevote "+onOff[cfg.PreVote],
		"config checkquorum off",
		"config election-tick "+strconv.Itoa(cfg.ElectionTick),
		"config heartbeat-tick 1")
	return cfg
}

// takeHeader is a mutated scenario's header as this harness takes it
// (the explorer's scripted moves write etcd's): CheckQuorum off, a
// heartbeat every tick, no uncommitted-size limit and conf changes
// applied at the Ready where it asked otherwise (headerRefusal's
// refusals), the rest as it was.
func takeHeader(cfg lang.Config, lines []string) (lang.Config, []string) {
	cfg.CheckQuorum, cfg.HeartbeatTick = false, 1
	cfg.MaxUncommitted, cfg.ApplyByStep = 0, false
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

// ConfOptions: none; hashicorp's membership changes are not driven here
// (add-node, remove-node and apply are refused at their line).
func (c *cluster) ConfOptions(g *lang.Generator, opts []lang.Option) []lang.Option {
	return opts
}

// canCampaign: campaign refuses a leader and a candidate, with pre-vote
// a node that has heard from a leader, without it one behind another
// node's term (main.go).
func (c *cluster) canCampaign(id uint64) bool {
	r := c.nodes[id].r
	s := r.State()
	if s == raft.Leader || s == raft.Candidate {
		return false
	}
	if c.cfg.PreVote {
		return r.LastContact().IsZero()
	}
	return c.termTaken(id) == 0
}

// NodeOptions are the steps node id can take in its state.
func (c *cluster) NodeOptions(g *lang.Generator, opts []lang.Option, id uint64, crashed int) []lang.Option {
	r := c.nodes[id].r
	if r == nil {
		return append(opts, lang.Option{Line: fmt.Sprintf("restart %d", id), Weight: 3})
	}
	a, b := id%nodes+1, (id+1)%nodes+1
	leader := r.State() == raft.Leader
	if leader {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("tick %d", id), Weight: 4},
			lang.Option{Line: fmt.Sprintf("propose %d %s", id, g.Data()), Weight: 3})
	}
	if c.canCampaign(id) {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("campaign %d", id), Weight: 3},
			lang.Option{Line: fmt.Sprintf("elect %d %d %d", id, a, b), Weight: 1})
	}
	if crashed == 0 {
		opts = append(opts, lang.Option{Line: fmt.Sprintf("crash %d", id), Weight: 1})
	}
	return c.compactOption(opts, id)
}

// compactOption compacts node id's log up to what its FSM applied, when
// that is not dropped already (compact's refusals, main.go).
func (c *cluster) compactOption(opts []lang.Option, id uint64) []lang.Option {
	applied := c.nodes[id].fsm.applied.Load()
	if applied <= c.dropped(id) {
		return opts
	}
	return append(opts, lang.Option{Line: fmt.Sprintf("compact %d %d", id, applied), Weight: 2})
}
