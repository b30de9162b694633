#!/usr/bin/env python3
"""capture go's events of tests/go/nodes-state.probes against the nodes' log.

usage: check-nodes-state.py EVENTS LOG

Each step, in the log's order, carries how many steps its node (a string
key) has made so far, how many messages its sender (another string key)
has sent so far, the sender its node kept at its last step ("none" at
its first: the default), and the sender, a string kept and read back.  Exits 1
with the first difference.
"""
import collections
import json
import re
import sys

from inorder import same_events

STEP = re.compile(r"step (\S+) from (\S+) term ")


def main():
    got = [json.loads(line) for line in open(sys.argv[1])]
    steps, heard, want = collections.Counter(), collections.Counter(), []
    last = {}
    for text in open(sys.argv[2]):
        if m := STEP.match(text):
            node, frm = m.groups()
            steps[node] += 1
            heard[frm] += 1
            want.append({"event": "Step", "proc": 0, "node": node, "from": frm,
                         "steps": steps[node], "fromhere": heard[frm],
                         "before": last.get(node, "none"), "last": frm})
            last[node] = frm
    same_events(got, want)
    print(f"{len(got)} steps of {len(steps)} nodes")


main()
