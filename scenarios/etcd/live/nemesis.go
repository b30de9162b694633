// The nemesis: faults from a seed, one at a time, each applied for a while
// and then healed.  The schedule (what, when, how long, which member) is
// drawn from the seed before the run and printed with the summary; what was
// applied (the member a leader fault hit, when it really began and ended)
// is printed beside it.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"time"
)

// exitBadNemesis is the exit status for an unknown fault kind (a usage error).
const exitBadNemesis = 2

// The fault kinds, in the order their names are documented.
var faultKinds = []string{"isolate", "isolate-leader", "bridge", "one-way",
	"pause", "crash", "loss"}

// lossPercent is the share of a lossy member's packets dropped each way.
const lossPercent = 30

// A planned fault: At and For in seconds from the workload's start.
type fault struct {
	Kind   string  `json:"kind"`
	At     float64 `json:"at"`
	For    float64 `json:"for"`
	Target string  `json:"target"`          // a member, or "leader"
	Other  string  `json:"other,omitempty"` // bridge, one-way: the other end
}

// What happened when a fault was applied.
type applied struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	Other  string  `json:"other,omitempty"`
	At     float64 `json:"at"`
	Healed float64 `json:"healed"`
}

type nemesisSummary struct {
	Seed     uint64    `json:"seed"`
	Kinds    []string  `json:"kinds"`
	Schedule []fault   `json:"schedule"`
	Applied  []applied `json:"applied"`
}

// parseKinds checks a comma-separated list of fault kinds ("all": every one).
func parseKinds(list string) []string {
	if list == "all" {
		return faultKinds
	}
	var kinds []string
	for _, k := range strings.Split(list, ",") {
		known := false
		for _, f := range faultKinds {
			known = known || k == f
		}
		if !known {
			fmt.Fprintf(os.Stderr, "etcd-live: -nemesis: unknown fault %q (one of %s, or all)\n",
				k, strings.Join(faultKinds, ","))
			os.Exit(exitBadNemesis)
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// plan draws the schedule for a workload of @seconds: the run is cut into
// slots, at most 6 s each and enough for every kind to come once; each
// round takes the kinds in a fresh seeded order; a fault starts in the
// first part of its slot and lasts 40-70 % of it, the rest is quiet.
func plan(kinds []string, seed uint64, seconds float64) []fault {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	slot := seconds / float64(len(kinds)+1)
	if slot > 6 {
		slot = 6
	}
	var out []fault
	var order []string
	for t := slot / 2; t+slot <= seconds; t += slot {
		if len(order) == 0 {
			order = append([]string{}, kinds...)
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		f := fault{Kind: order[0], At: round(t + rng.Float64()*slot*0.2),
			For: round(slot * (0.4 + 0.3*rng.Float64()))}
		order = order[1:]
		a := rng.IntN(members)
		f.Target = fmt.Sprintf("m%d", a+1)
		switch f.Kind {
		case "isolate-leader":
			f.Target = "leader"
		case "bridge", "one-way":
			f.Other = fmt.Sprintf("m%d", (a+1+rng.IntN(members-1))%members+1)
		}
		out = append(out, f)
	}
	return out
}

func round(s float64) float64 { return float64(int64(s*1000)) / 1000 }

// The nemesis acts on the cluster.
type nemesis struct {
	c       *clusterState
	begin   time.Time
	summary nemesisSummary
}

// run applies the schedule until it ends or stop closes; every fault is
// healed before it returns.
func (n *nemesis) run(stop <-chan struct{}) {
	for _, f := range n.summary.Schedule {
		if !n.sleepUntil(f.At, stop) {
			return
		}
		a := applied{Kind: f.Kind, Target: f.Target, Other: f.Other}
		if f.Target == "leader" {
			a.Target = n.c.nodes[n.c.leaderOr(0)].name
		}
		a.At = round(time.Since(n.begin).Seconds())
		heal := n.apply(a)
		n.sleepUntil(f.At+f.For, stop)
		heal()
		a.Healed = round(time.Since(n.begin).Seconds())
		n.summary.Applied = append(n.summary.Applied, a)
	}
}

func (n *nemesis) sleepUntil(at float64, stop <-chan struct{}) bool {
	select {
	case <-time.After(time.Until(n.begin.Add(time.Duration(at * float64(time.Second))))):
		return true
	case <-stop:
		return false
	}
}

// apply starts fault a and returns what heals it.
func (n *nemesis) apply(a applied) func() {
	m, other := n.c.byName(a.Target), n.c.byName(a.Other)
	switch a.Kind {
	case "isolate", "isolate-leader":
		var rules []string
		for _, o := range n.c.nodes {
			if o != m {
				rules = append(rules, cut(o.ns.addr, true)...)
			}
		}
		return m.filter(rules)
	case "bridge":
		return m.filter(cut(other.ns.addr, true))
	case "one-way":
		return m.filter(cut(other.ns.addr, false))
	case "loss":
		return m.filter([]string{
			fmt.Sprintf("add rule inet nemesis in numgen random mod 100 < %d drop", lossPercent),
			fmt.Sprintf("add rule inet nemesis out numgen random mod 100 < %d drop", lossPercent)})
	case "pause":
		m.cmd.Process.Signal(syscall.SIGSTOP)
		return func() { m.cmd.Process.Signal(syscall.SIGCONT) }
	case "crash":
		m.kill()
		return func() { m.start(n.c.self, n.c.initial) }
	}
	die("no fault %q", a.Kind)
	return nil
}

// cut drops what the member sends to addr and, both ways, what it gets
// from addr: rules of the member's own table.
func cut(addr string, both bool) []string {
	r := []string{"add rule inet nemesis out ip daddr " + addr + " drop"}
	if both {
		r = append(r, "add rule inet nemesis in ip saddr "+addr+" drop")
	}
	return r
}

// filter adds rules to the member's table; the heal flushes its chains.
func (n *node) filter(rules []string) func() {
	n.ns.nft(strings.Join(rules, "\n") + "\n")
	return func() { n.ns.nft("flush chain inet nemesis in\nflush chain inet nemesis out\n") }
}
