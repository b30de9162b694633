#!/usr/bin/env python3
"""capture go's events of tests/go/nodes.probes against the nodes' log.

usage: check-nodes.py EVENTS LOG

The program is one goroutine: its events come in the order of its log.
Each "step" line is a Step event and a Stepped event.  Step: the node's id and the sender's as
strings, the term and data length; the node's address (its id 8 times)
bounded to 16 bytes as {"first","len"}; its id bounded to 10 bytes (the
one longer id cut before the character the bound splits); its peers'
count.  Stepped: its id, its 30th peer (null past the slice's end), its first 4 peers (with
the count when there are more).  Exits 1 with the first difference.
"""
import json
import re
import sys

from inorder import same_events

STEP = re.compile(r"step (\S+) from (\S+) term (\d+) data (\d+) err (\S+) -> "
                  r"term (\d+) leader (\S+) applied (\d+) votes (\d+) log (\d+)$")


def bounded(text, limit):
    """A str field of @limit bytes: the string, or its whole characters first."""
    raw = text.encode()
    if len(raw) <= limit:
        return text
    return {"first": raw[:limit].decode(errors="ignore"), "len": len(raw)}


def expected(log):
    want, nodes = [], []
    for line in open(log, encoding="utf-8"):
        m = STEP.match(line.strip())
        if not m:
            continue
        node, frm, term, data = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        if node not in nodes:
            nodes.append(node)
        peers = 1 + 30 * nodes.index(node)
        want.append({"event": "Step", "proc": 0, "node": node, "from": frm,
                     "term": term, "data": data, "addr": bounded(node * 8, 16),
                     "short": bounded(node, 10), "peers": peers})
        want.append({"event": "Stepped", "proc": 0, "node": node,
                     "peer30": 30 if peers > 30 else None,
                     "first": list(range(min(peers, 4))) if peers <= 4 else
                     {"first": [0, 1, 2, 3], "len": peers}})
    return want


def main():
    got = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    want = expected(sys.argv[2])
    if not want:
        sys.exit("no step in the log")
    same_events(got, want)
    print(f"{len(got)} events of {len({e['node'] for e in got})} nodes")


main()
