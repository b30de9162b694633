// SPDX-License-Identifier: MIT

// The steps made of other steps, shared by the raft harnesses that read
// etcd's scenario language (scenarios/hashicorp links this file, as it
// does scenario.go): what each cluster gives them is its deliver(to,
// from), campaign(id) and pending().
package main

// pump delivers every queued message, to each node from each sender in
// turn, until none is left.
func (c *cluster) pump() {
	for c.pending() {
		for to := uint64(1); to <= maxNodes; to++ {
			for from := uint64(1); from <= maxNodes; from++ {
				c.deliver(to, from)
			}
		}
	}
}

// elect campaigns n, delivers its requests to a and b, their answers
// to n, then pumps.
func (c *cluster) elect(n, a, b uint64) error {
	if err := c.campaign(n); err != nil {
		return err
	}
	c.deliver(a, n)
	c.deliver(b, n)
	c.deliver(n, a)
	c.deliver(n, b)
	c.pump()
	return nil
}
