// SPDX-License-Identifier: MIT

// The steps of the language run on a harness's cluster: each word's call,
// the steps made of other steps, and what a harness refuses or cannot
// refuse.  What each cluster gives them is its Cluster's methods.
package lang

// Run runs step s on c: refused (an error) where c's state does not
// allow it (Liveness) or the cluster refuses it.
func Run(c Cluster, s Step) error {
	if err := c.Liveness(s); err != nil {
		return err
	}
	switch s.Word {
	case "campaign":
		return c.Campaign(s.IDs[0])
	case "propose":
		return c.Propose(s.IDs[0], s.Data)
	case "elect":
		return elect(c, s.IDs[0], s.IDs[1], s.IDs[2])
	case "deliver-one":
		return c.DeliverOne(s.IDs[0], s.IDs[1])
	case "drop":
		return c.Drop(s.IDs[0], s.IDs[1])
	case "duplicate":
		return c.Duplicate(s.IDs[0], s.IDs[1])
	case "compact":
		return c.Compact(s.IDs[0], s.Index)
	case "tick":
		return c.Tick(s.IDs[0])
	case "hold":
		return c.Hold(s.IDs[0])
	case "release":
		return c.Release(s.IDs[0])
	case "add-node":
		return c.AddNode(s.IDs[0], s.IDs[1])
	case "remove-node":
		return c.RemoveNode(s.IDs[0], s.IDs[1])
	case "apply":
		return c.Apply(s.IDs[0])
	}
	runTotal(c, s)
	return nil
}

// runTotal runs the steps that cannot be refused once parsed.
func runTotal(c Cluster, s Step) {
	switch s.Word {
	case "deliver":
		c.Deliver(s.IDs[0], s.IDs[1])
	case "reverse":
		c.Reverse(s.IDs[0], s.IDs[1])
	case "discard":
		c.Discard(s.IDs[0])
	case "pump":
		pump(c)
	case "crash":
		c.Crash(s.IDs[0])
	case "restart":
		c.Restart(s.IDs[0])
	case "partition":
		c.Partition(s.Groups)
	case "heal":
		c.Heal()
	}
}

// pump delivers every queued message, to each node from each sender in
// turn, until none is left.
func pump(c Cluster) {
	for c.Pending() {
		for to := uint64(1); to <= h.MaxNodes; to++ {
			for from := uint64(1); from <= h.MaxNodes; from++ {
				c.Deliver(to, from)
			}
		}
	}
}

// elect campaigns n, delivers its requests to a and b, their answers
// to n, then pumps.
func elect(c Cluster, n, a, b uint64) error {
	if err := c.Campaign(n); err != nil {
		return err
	}
	c.Deliver(a, n)
	c.Deliver(b, n)
	c.Deliver(n, a)
	c.Deliver(n, b)
	pump(c)
	return nil
}
