// SPDX-License-Identifier: MIT

// Package lang is the raft scenario language a Go harness runs its raft
// by (scenarios/etcd/, scenarios/hashicorp/): the scenario files' parser
// (scenario.go), the steps run on a harness's cluster (steps.go), the
// explorer's generator (generate.go) and server (serve.go), and the
// harness's command line (Main).  A harness gives it a Harness: its
// cluster and how it replays a scenario file.
package lang

import (
	"fmt"
	"os"
	"strings"
)

// Harness is what a raft's harness gives the language.
type Harness struct {
	Name     string // the command's name ("etcd-harness"), its messages'
	Nodes    uint64 // the cluster it starts
	MaxNodes uint64 // the ids a scenario may name (above Nodes: add-node)
	// New starts a cluster with cfg.
	New func(cfg Config) Cluster
	// Replay runs the scenario file path on a cluster of its own, and
	// with StepMap writes there one line per step: the trace events
	// written before it (TraceEvents) and its file:line.
	Replay  func(path, stepMap string)
	StepMap bool // the command line takes a STEP_MAP
	// RandomHeader draws the configuration of a new generated scenario
	// from g.Rng and writes its header (g.Header); TakeHeader is a
	// mutated scenario's configuration and header as this harness takes
	// them.
	RandomHeader func(g *Generator) Config
	TakeHeader   func(cfg Config, lines []string) (Config, []string)
	// TraceEvents is how many trace events the harness wrote itself so
	// far (none under the probes); FlushTrace writes them out.
	TraceEvents func() int
	FlushTrace  func()
}

// Cluster is a harness's cluster as the language drives it.
type Cluster interface {
	// Liveness refuses a step the state of its acting node does not
	// allow (crashed, not started); steps on the network alone pass.
	Liveness(s Step) error
	// The steps a cluster may refuse: an error says why.
	Campaign(id uint64) error
	Propose(id uint64, data string) error
	DeliverOne(to, from uint64) error
	Drop(to, from uint64) error
	Duplicate(to, from uint64) error
	Compact(id, index uint64) error
	Tick(id uint64) error
	Hold(id uint64) error
	Release(id uint64) error
	AddNode(id, node uint64) error
	RemoveNode(id, node uint64) error
	Apply(id uint64) error
	// The steps it cannot refuse once their node is live.
	Deliver(to, from uint64)
	Reverse(to, from uint64)
	Discard(id uint64)
	Crash(id uint64)
	Restart(id uint64)
	Partition(groups [][]uint64)
	Heal()
	// Finish ends a scenario's run.
	Finish()
	// The generator's view: messages in flight, which nodes run, and the
	// steps a node may take in its state (never one the cluster refuses).
	Pending() bool
	Queued(to, from uint64) bool
	QueuedFor(to uint64) bool
	Duplicable(to, from uint64) bool
	Partitioned() bool
	Started(id uint64) bool
	Crashed(id uint64) bool // started, crashed, not removed
	NodeOptions(g *Generator, opts []Option, id uint64, crashed int) []Option
	ConfOptions(g *Generator, opts []Option) []Option
}

// h is the harness this process is: one a process (Main).
var h *Harness

// Fatal ends the harness with code, its message prefixed by the
// harness's name; a refusal (3) while serving ends only the try
// (serve.go).
func Fatal(code int, format string, args ...any) {
	msg := fmt.Sprintf(h.Name+": "+format, args...)
	if serving && code == 3 {
		panic(refusal{msg})
	}
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// scenarioStart is where scenario i of a -batch run begins: the eBPF
// driver probes it and sends the events that follow to that scenario's
// file.  Not inlined, so that it stays a function to probe.
//
//go:noinline
func scenarioStart(i int) {}

// Main runs the command line of harness hh: a scenario file, -batch,
// -generate or -serve.
func Main(hh *Harness) {
	h = hh
	args := os.Args[1:]
	switch {
	case len(args) >= 2 && args[0] == "-batch":
		for i, p := range args[1:] {
			scenarioStart(i)
			h.Replay(p, "")
		}
	case len(args) >= 1 && args[0] == "-generate":
		generate(args[1:])
	case len(args) == 1 && args[0] == "-serve":
		serve()
	case len(args) == 1 || (h.StepMap && len(args) == 2):
		h.Replay(args[0], strings.Join(args[1:], ""))
	default:
		stepMap := ""
		if h.StepMap {
			stepMap = " [STEP_MAP]"
		}
		Fatal(2, "usage: %[1]s SCENARIO_FILE%[2]s\n"+
			"       %[1]s -batch SCENARIO_FILE...\n"+
			"       %[1]s -serve (tries on stdin: serve.go)\n"+
			"       %[1]s -generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]",
			h.Name, stepMap)
	}
}
