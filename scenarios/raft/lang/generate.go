// SPDX-License-Identifier: MIT

// The scenario generator of an exploration (capture etcd --explore,
// capture hashicorp --explore): "-generate SEED STEPS OUT STEP_MAP
// [PREFIX_FILE K]" runs the cluster while it writes a scenario, each step
// drawn by a PRNG seeded with SEED among the steps the cluster's state
// allows (Cluster.NodeOptions(), the harness's own: so none is refused
// and every tick is deterministic), and writes the scenario to OUT and
// its step map (the harness's Replay) to STEP_MAP.  With a prefix it
// first replays PREFIX_FILE's header (as the harness can take it:
// Harness.TakeHeader) and first K steps (kept scenarios being mutated),
// but those the state does not allow.  The scenario replays to the same
// trace: the randomness is all here, none at replay.
package lang

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Generator is a scenario being drawn: the harness's RandomHeader draws
// its header from Rng, its cluster's NodeOptions name proposals by Data.
type Generator struct {
	Rng   *rand.Rand
	c     Cluster
	lines []string
	data  int
	out   string          // the scenario file being written
	steps strings.Builder // its step map
}

// Header adds lines to the scenario's header.
func (g *Generator) Header(lines ...string) {
	g.lines = append(g.lines, lines...)
}

// Data is the data of the next proposal drawn: v1, v2, ...
func (g *Generator) Data() string {
	g.data++
	return "v" + strconv.Itoa(g.data)
}

// Option is a step the state allows, with its weight in the draw.
type Option struct {
	Line   string
	Weight int
}

// linkOptions are the steps on the messages queued from f for t.
func (g *Generator) linkOptions(opts []Option, t, f uint64) []Option {
	if !g.c.Queued(t, f) {
		return opts
	}
	link := fmt.Sprintf(" %d<-%d", t, f)
	opts = append(opts, Option{"deliver-one" + link, 8},
		Option{"deliver" + link, 3}, Option{"drop" + link, 1})
	if g.c.Duplicable(t, f) {
		opts = append(opts, Option{"duplicate" + link, 2})
	}
	return append(opts, Option{"reverse" + link, 2})
}

// networkOptions are the steps on the network as a whole.
func (g *Generator) networkOptions(opts []Option) []Option {
	if g.c.Pending() {
		opts = append(opts, Option{"pump", 1})
	}
	for t := uint64(1); t <= h.MaxNodes; t++ {
		if g.c.QueuedFor(t) {
			opts = append(opts, Option{fmt.Sprintf("discard %d", t), 1})
		}
	}
	if g.c.Partitioned() {
		return append(opts, Option{"heal", 3})
	}
	x := g.Rng.IntN(int(h.Nodes)) + 1
	joined := "" // nodes added: on the other side
	for id := h.Nodes + 1; id <= h.MaxNodes; id++ {
		if g.c.Started(id) {
			joined += fmt.Sprintf(" %d", id)
		}
	}
	return append(opts, Option{fmt.Sprintf("partition %d | %d %d%s", x,
		x%int(h.Nodes)+1, (x+1)%int(h.Nodes)+1, joined), 1})
}

func (g *Generator) options() []Option {
	var opts []Option
	crashed := 0
	for id := uint64(1); id <= h.MaxNodes; id++ {
		if g.c.Crashed(id) {
			crashed++
		}
	}
	for t := uint64(1); t <= h.MaxNodes; t++ {
		for f := uint64(1); f <= h.MaxNodes; f++ {
			if t != f {
				opts = g.linkOptions(opts, t, f)
			}
		}
	}
	for id := uint64(1); id <= h.MaxNodes; id++ {
		if g.c.Started(id) {
			opts = g.c.NodeOptions(g, opts, id, crashed)
		}
	}
	return g.c.ConfOptions(g, g.networkOptions(opts))
}

func (g *Generator) draw() string {
	opts := g.options()
	total := 0
	for _, o := range opts {
		total += o.Weight
	}
	pick := g.Rng.IntN(total)
	for _, o := range opts {
		if pick -= o.Weight; pick < 0 {
			return o.Line
		}
	}
	panic("unreachable")
}

// runLine parses and runs one step; the generator offers only steps the
// state allows, so a refusal is its own bug.
func (g *Generator) runLine(line, pos string) {
	fmt.Fprintf(&g.steps, "%d %s:%d\n", h.TraceEvents(), g.out, len(g.lines)+1)
	s, bad := parseStep(strings.Fields(line))
	if bad == "" {
		s.Pos = pos
		if err := Run(g.c, s); err != nil {
			bad = err.Error()
		}
	}
	if bad != "" {
		Fatal(1, "generated step %q (%s): %s", line, pos, bad)
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
func (g *Generator) allowed(line string) string {
	key := optionKey(line)
	if key == "partition" {
		// a partition must name the nodes started, and only them
		s, bad := parseStep(strings.Fields(line))
		if bad != "" || g.c.Liveness(s) != nil {
			return ""
		}
	}
	for _, o := range g.options() {
		if optionKey(o.Line) != key {
			continue
		}
		if strings.HasPrefix(line, "compact ") {
			return o.Line
		}
		return line
	}
	return ""
}

// prefix replays the header and first k steps of a scenario the explorer
// composed from kept ones, but the steps the state no longer allows.  Its
// steps are read as lines, not parsed: one may name a node this harness
// has not (the explorer's scripted moves are etcd's, whose fourth node
// joins), which no state allows either.
func (g *Generator) prefix(path string, k int) {
	lines, steps := scenarioLines(path)
	cfg := defaultConfig
	for _, l := range lines {
		if bad := setConfig(&cfg, strings.Fields(l)); bad != "" {
			Fatal(3, "%s: %s", path, bad)
		}
	}
	cfg, header := h.TakeHeader(cfg, lines)
	g.c = h.New(cfg)
	g.lines = append(g.lines, header...)
	for i := 0; i < k && i < len(steps); i++ {
		if line := g.allowed(steps[i].Text); line != "" {
			g.runLine(line, steps[i].Pos)
		}
	}
}

// scenarioLines are the config lines and the steps (their text and
// file:line only) of a scenario file, comments cut, fields joined by one
// space.
func scenarioLines(path string) (header []string, steps []Step) {
	text, err := os.ReadFile(path)
	if err != nil {
		Fatal(3, "%v", err)
	}
	for i, l := range strings.Split(string(text), "\n") {
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
		case f[0] == "config":
			header = append(header, strings.Join(f, " "))
		default:
			steps = append(steps, Step{Text: strings.Join(f, " "),
				Pos: fmt.Sprintf("%s:%d", path, i+1)})
		}
	}
	return header, steps
}

func generate(args []string) {
	if len(args) != 4 && len(args) != 6 {
		Fatal(2, "usage: -generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]")
	}
	seed, err1 := strconv.ParseUint(args[0], 10, 64)
	n, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || n < 0 {
		Fatal(2, "-generate: bad SEED or STEPS")
	}
	g := &Generator{Rng: rand.New(rand.NewPCG(seed, 0x65746364)), out: args[2]}
	if len(args) == 6 {
		k, err := strconv.Atoi(args[5])
		if err != nil || k < 0 {
			Fatal(2, "-generate: bad K")
		}
		g.prefix(args[4], k)
	} else {
		g.c = h.New(h.RandomHeader(g))
	}
	for i := 0; i < n; i++ {
		g.runLine(g.draw(), fmt.Sprintf("generated step %d", i+1))
	}
	g.c.Finish()
	out := strings.Join(g.lines, "\n") + "\n"
	if err := os.WriteFile(args[2], []byte(out), 0o644); err != nil {
		Fatal(1, "%v", err)
	}
	if err := os.WriteFile(args[3], []byte(g.steps.String()), 0o644); err != nil {
		Fatal(1, "%v", err)
	}
	h.FlushTrace()
}
