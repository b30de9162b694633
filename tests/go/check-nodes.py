#!/usr/bin/env python3
"""capture go's events of tests/go/nodes.probes against the nodes' log.

usage: check-nodes.py EVENTS LOG

The program is one goroutine: its events come in the order of its log.
Each "step" line is a Step event and a Stepped event.  Step: the node's id and the sender's as
strings, the term and data length; the node's address (its id 8 times)
bounded to 16 bytes as {"first","len"}; its id bounded to 10 bytes (the
one longer id cut before the character the bound splits); its peers'
count; its id as a []byte bounded to 8 bytes, and its id 3 times as a
[]byte bounded to 16.  Stepped: its id, its 30th peer (null past the slice's end), its first 4 peers (with
the count when there are more), its term and leader (fields of its embedded State), its applied
count (an atomic.Uint64), whether its error result is nil, its votes
(len of a map), its log's length when the log is a *memLog (null for the
one node whose log is a *nullLog: the assertion fails), and that it has
a log.  Every "put" line is a Put event of one of
main.Put's two instantiations: the count it returns and its key.  Exits 1 with the first difference.
"""
import json
import re
import sys

from inorder import same_events

PUT = re.compile(r"put (ints|ids) (\d+) (\S+)$")
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
                     "short": bounded(node, 10), "peers": peers,
                     "key": bounded(node, 8), "blob": bounded(node * 3, 16)})
        want.append({"event": "Stepped", "proc": 0, "node": node,
                     "peer30": 30 if peers > 30 else None,
                     "first": list(range(min(peers, 4))) if peers <= 4 else
                     {"first": [0, 1, 2, 3], "len": peers},
                     "term": int(m.group(6)), "leader": m.group(7),
                     "applied": int(m.group(8)), "ok": m.group(5) == "true",
                     "votes": int(m.group(9)),
                     "kept": None if nodes.index(node) == 2 else int(m.group(10)),
                     "haslog": True})
        continue
    return want


def puts(log):
    """Put events, one per "put" line: every instantiation of main.Put."""
    want = []
    for line in open(log, encoding="utf-8"):
        m = PUT.match(line.strip())
        if m:
            want.append({"event": "Put", "proc": 0, "puts": int(m.group(2)),
                         "key": m.group(3)})
    return want


def main():
    got = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    want = expected(sys.argv[2])
    got, put = [e for e in got if e["event"] != "Put"], [e for e in got if e["event"] == "Put"]
    if put != puts(sys.argv[2]):
        sys.exit(f"{len(put)} Put events differ from the log's puts")
    if not want:
        sys.exit("no step in the log")
    same_events(got, want)
    print(f"{len(got)} events of {len({e['node'] for e in got})} nodes")


main()
