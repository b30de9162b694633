#!/usr/bin/env python3
"""capture probe's events of tests/probe/tail.probes against tail.c's log.

usage: check-tail.py EVENTS LOG [...]

Each "route x=X r=R" line is a Route and a Routed event, each "weigh
c=C r=R" a Weighed event, each "via r=R" a Passed event, each "release
r=R" a Released event, in the log's order: every return, by a RET or by
a tail call.  Exits 1 with the first difference.
"""
import json
import re
import sys

LINE = re.compile(r"(route|weigh|via|release) ((?:\w+=-?\d+ ?)+)$")


def main():
    want = []
    for line in open(sys.argv[2]):
        m = LINE.match(line.rstrip("\n"))
        if not m:
            continue
        kv = {k: int(v) for k, v in (p.split("=") for p in m.group(2).split())}
        if m.group(1) == "route":
            want.append(dict(event="Route", proc=0, x=kv["x"]))
        name = {"route": "Routed", "weigh": "Weighed", "via": "Passed",
                "release": "Released"}
        want.append(dict(event=name[m.group(1)], proc=0, **kv))
    got = [json.loads(line) for line in open(sys.argv[1])]
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            sys.exit(f"event {i + 1}: {json.dumps(g)}, the log says {json.dumps(w)}")
    if len(got) != len(want):
        sys.exit(f"{len(got)} events, the log says {len(want)}")
    tails = sum(1 for w in want if w["event"] in ("Routed", "Weighed", "Passed") and
                w["r"] > 100)
    print(f"{len(want)} events, {tails} returns by a tail call to leaf")


main()
