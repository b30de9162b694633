// SPDX-License-Identifier: MIT

// The scenario generator of an exploration (capture etcd --explore,
// capture hashicorp --explore), shared by the raft harnesses that read
// etcd's scenario language (scenario.go; scenarios/hashicorp links this
// file): "-generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]" runs the
// cluster while it writes a scenario, each step drawn by a PRNG seeded
// with SEED among the steps the cluster's state allows (nodeOptions(),
// the harness's own: so none is refused and every tick is deterministic),
// and writes the scenario to OUT and its step map (main.go's replay) to
// STEP_MAP.  With a prefix it first replays PREFIX_FILE's header (as the
// harness can take it: takeHeader) and first K steps (kept scenarios
// being mutated), but those the state does not allow.  The scenario
// replays to the same trace: the randomness is all here, none at replay.
//
// What a harness gives it: its constants nodes (the cluster it starts)
// and maxNodes (the ids a scenario may name); its cluster's
// newCluster(config), run(step), liveness(step), finish(), started(id),
// crashed(id) (started, crashed, not removed), queued(to, from),
// queuedFor(to), duplicable(to, from), pending(), partitioned(); the
// generator's randomHeader(), nodeOptions(), confOptions() (the
// membership steps it offers, if any) and takeHeader(); traceEvents() and
// flushTrace().
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
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

// linkOptions are the steps on the messages queued from f for t.
func (g *generator) linkOptions(opts []option, t, f uint64) []option {
	if !g.c.queued(t, f) {
		return opts
	}
	link := fmt.Sprintf(" %d<-%d", t, f)
	opts = append(opts, option{"deliver-one" + link, 8},
		option{"deliver" + link, 3}, option{"drop" + link, 1})
	if g.c.duplicable(t, f) {
		opts = append(opts, option{"duplicate" + link, 2})
	}
	return append(opts, option{"reverse" + link, 2})
}

// networkOptions are the steps on the network as a whole.
func (g *generator) networkOptions(opts []option) []option {
	if g.c.pending() {
		opts = append(opts, option{"pump", 1})
	}
	for t := uint64(1); t <= maxNodes; t++ {
		if g.c.queuedFor(t) {
			opts = append(opts, option{fmt.Sprintf("discard %d", t), 1})
		}
	}
	if g.c.partitioned() {
		return append(opts, option{"heal", 3})
	}
	x := g.rng.IntN(nodes) + 1
	joined := "" // nodes added: on the other side
	for id := uint64(nodes + 1); id <= maxNodes; id++ {
		if g.c.started(id) {
			joined += fmt.Sprintf(" %d", id)
		}
	}
	return append(opts, option{fmt.Sprintf("partition %d | %d %d%s", x,
		x%nodes+1, (x+1)%nodes+1, joined), 1})
}

func (g *generator) options() []option {
	var opts []option
	crashed := 0
	for id := uint64(1); id <= maxNodes; id++ {
		if g.c.crashed(id) {
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
		if g.c.started(id) {
			opts = g.nodeOptions(opts, id, crashed)
		}
	}
	return g.confOptions(g.networkOptions(opts))
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
		if bad != "" || g.c.liveness(s) != nil {
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
// composed from kept ones, but the steps the state no longer allows.  Its
// steps are read as lines, not parsed: one may name a node this harness
// has not (the explorer's scripted moves are etcd's, whose fourth node
// joins), which no state allows either.
func (g *generator) prefix(path string, k int) {
	lines, steps := scenarioLines(path)
	cfg := defaultConfig
	for _, l := range lines {
		if bad := setConfig(&cfg, strings.Fields(l)); bad != "" {
			fatal(3, "%s: %s", path, bad)
		}
	}
	cfg, header := takeHeader(cfg, lines)
	g.c = newCluster(cfg)
	g.lines = append(g.lines, header...)
	for i := 0; i < k && i < len(steps); i++ {
		if line := g.allowed(steps[i].text); line != "" {
			g.runLine(line, steps[i].pos)
		}
	}
}

// scenarioLines are the config lines and the steps (their text and
// file:line only) of a scenario file, comments cut, fields joined by one
// space.
func scenarioLines(path string) (header []string, steps []step) {
	text, err := os.ReadFile(path)
	if err != nil {
		fatal(3, "%v", err)
	}
	for i, l := range strings.Split(string(text), "\n") {
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
		case f[0] == "config":
			header = append(header, strings.Join(f, " "))
		default:
			steps = append(steps, step{text: strings.Join(f, " "),
				pos: fmt.Sprintf("%s:%d", path, i+1)})
		}
	}
	return header, steps
}

func generate(args []string) {
	if len(args) != 4 && len(args) != 6 {
		fatal(2, "usage: -generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]")
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
	g.c.finish()
	out := strings.Join(g.lines, "\n") + "\n"
	if err := os.WriteFile(args[2], []byte(out), 0o644); err != nil {
		fatal(1, "%v", err)
	}
	if err := os.WriteFile(args[3], []byte(g.steps.String()), 0o644); err != nil {
		fatal(1, "%v", err)
	}
	flushTrace()
}
