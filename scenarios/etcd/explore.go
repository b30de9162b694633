// SPDX-License-Identifier: MIT

// The scenario generator of capture etcd --explore: "-generate SEED STEPS
// OUT STEP_MAP [PREFIX_FILE K]" runs the cluster while it writes a scenario, each
// step drawn by a PRNG seeded with SEED among the steps the cluster's
// state allows (so none is refused and every tick is deterministic), and
// writes the scenario to OUT and its step map (main.go's replay) to
// STEP_MAP.  With a prefix it first replays PREFIX_FILE's
// header and first K steps (kept scenarios being mutated), but those the
// state does not allow.  The scenario
// replays to the same trace: the randomness is all here, none at replay.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"
)

type generator struct {
	c     *cluster
	rng   *rand.Rand
	lines []string
	data  int
	out   string          // the scenario file being written
	steps strings.Builder // its step map
}

// option is a step the state allows, with its weight in the draw.
type option struct {
	line   string
	weight int
}

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

// linkOptions are the steps on the messages queued from f for t.
func (g *generator) linkOptions(opts []option, t, f uint64) []option {
	if g.c.find(t, f) < 0 {
		return opts
	}
	link := fmt.Sprintf(" %d<-%d", t, f)
	return append(opts, option{"deliver-one" + link, 8},
		option{"deliver" + link, 3}, option{"drop" + link, 1},
		option{"duplicate" + link, 2}, option{"reverse" + link, 2})
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

// networkOptions are the steps on the network as a whole.
func (g *generator) networkOptions(opts []option) []option {
	if g.c.pending() {
		opts = append(opts, option{"pump", 1})
	}
	for t := uint64(1); t <= maxNodes; t++ {
		if len(g.c.queue[t]) > 0 {
			opts = append(opts, option{fmt.Sprintf("discard %d", t), 1})
		}
	}
	if g.c.group != [maxNodes + 1]int{} {
		return append(opts, option{"heal", 3})
	}
	x := g.rng.IntN(nodes) + 1
	joined := "" // nodes added: on the other side
	for id := uint64(nodes + 1); id <= maxNodes; id++ {
		if g.c.nodes[id] != nil {
			joined += fmt.Sprintf(" %d", id)
		}
	}
	return append(opts, option{fmt.Sprintf("partition %d | %d %d%s", x,
		x%nodes+1, (x+1)%nodes+1, joined), 1})
}

// membership reports whether the scenario's header asks for membership
// changes (the random headers never do: a kept scenario's does).
func (g *generator) membership() bool {
	cfg := g.c.cfg
	return cfg.applyByStep || cfg.maxUncommitted > 0 || cfg.noForwarding
}

// confOptions are the membership steps: a node that can propose adds the
// first node never started or removes a voter it knows; a node with a
// committed conf change applies it.
func (g *generator) confOptions(opts []option) []option {
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

func (g *generator) options() []option {
	var opts []option
	crashed := 0
	for id := uint64(1); id <= maxNodes; id++ {
		if n := g.c.nodes[id]; n != nil && n.rn == nil && !n.removed {
			crashed++
		}
	}
	for t := uint64(1); t <= maxNodes; t++ {
		for f := uint64(1); f <= maxNodes; f++ {
			if t != f {
				opts = g.linkOptions(opts, t, f)
			}
		}
	}
	for id := uint64(1); id <= maxNodes; id++ {
		if g.c.nodes[id] != nil {
			opts = g.nodeOptions(opts, id, crashed)
		}
	}
	opts = g.networkOptions(opts)
	if g.membership() {
		opts = g.confOptions(opts)
	}
	return opts
}

func (g *generator) draw() string {
	opts := g.options()
	total := 0
	for _, o := range opts {
		total += o.weight
	}
	pick := g.rng.IntN(total)
	for _, o := range opts {
		if pick -= o.weight; pick < 0 {
			return o.line
		}
	}
	panic("unreachable")
}

// runLine parses and runs one step; the generator offers only steps the
// state allows, so a refusal is its own bug.
func (g *generator) runLine(line, pos string) {
	fmt.Fprintf(&g.steps, "%d %s:%d\n", traceEvents(), g.out, len(g.lines)+1)
	s, bad := parseStep(strings.Fields(line))
	if bad == "" {
		s.pos = pos
		if err := g.c.run(s); err != nil {
			bad = err.Error()
		}
	}
	if bad != "" {
		fatal(1, "generated step %q (%s): %s", line, pos, bad)
	}
	g.lines = append(g.lines, line)
}

// optionKey is what a step must share with one the state allows to be
// allowed: its line, but a proposal's data and a partition's sides (any
// proposal a node can make is allowed, any partition is) and a
// compaction's index (the generator's is what the node applied).
func optionKey(line string) string {
	f := strings.Fields(line)
	switch f[0] {
	case "propose":
		return f[0] + " " + f[1]
	case "partition":
		return f[0]
	case "compact":
		return f[0] + " " + f[1]
	}
	return line
}

// allowed is the line to run for step @line of a prefix in the present
// state, or "" when the state does not allow it: a prefix made of other
// scenarios' steps (a spliced one, one under another header) drops what
// no longer fits instead of being refused.  A kept scenario's own steps
// under its own header are all allowed, unchanged.
func (g *generator) allowed(line string) string {
	key := optionKey(line)
	if key == "partition" {
		// a partition must name the nodes started, and only them
		s, bad := parseStep(strings.Fields(line))
		if bad != "" || g.c.sides(s.groups) != nil {
			return ""
		}
	}
	for _, o := range g.options() {
		if optionKey(o.line) != key {
			continue
		}
		if strings.HasPrefix(line, "compact ") {
			return o.line
		}
		return line
	}
	return ""
}

// prefix replays the header and first k steps of a scenario the explorer
// composed from kept ones, but the steps the state no longer allows.
func (g *generator) prefix(path string, k int) {
	cfg, steps := readScenario(path)
	g.c = newCluster(cfg)
	g.lines = append(g.lines, headerLines(path)...)
	for i := 0; i < k && i < len(steps); i++ {
		if line := g.allowed(steps[i].text); line != "" {
			g.runLine(line, steps[i].pos)
		}
	}
}

// headerLines are the config lines of a scenario file, comments cut.
func headerLines(path string) []string {
	text, err := os.ReadFile(path)
	if err != nil {
		fatal(3, "%v", err)
	}
	var out []string
	for _, l := range strings.Split(string(text), "\n") {
		l, _, _ = strings.Cut(l, "#")
		if f := strings.Fields(l); len(f) > 0 && f[0] == "config" {
			out = append(out, strings.Join(f, " "))
		}
	}
	return out
}

func generate(args []string) {
	if len(args) != 4 && len(args) != 6 {
		fatal(2, "usage: etcd-harness -generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]")
	}
	seed, err1 := strconv.ParseUint(args[0], 10, 64)
	n, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || n < 0 {
		fatal(2, "-generate: bad SEED or STEPS")
	}
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x65746364)), out: args[2]}
	if len(args) == 6 {
		k, err := strconv.Atoi(args[5])
		if err != nil || k < 0 {
			fatal(2, "-generate: bad K")
		}
		g.prefix(args[4], k)
	} else {
		g.c = newCluster(g.randomHeader())
	}
	for i := 0; i < n; i++ {
		g.runLine(g.draw(), fmt.Sprintf("generated step %d", i+1))
	}
	g.c.releaseAll()
	out := strings.Join(g.lines, "\n") + "\n"
	if err := os.WriteFile(args[2], []byte(out), 0o644); err != nil {
		fatal(1, "%v", err)
	}
	if err := os.WriteFile(args[3], []byte(g.steps.String()), 0o644); err != nil {
		fatal(1, "%v", err)
	}
	flushTrace()
}
