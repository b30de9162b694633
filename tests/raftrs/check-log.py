#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-log.py LOG EVENTS: raft-rs's own account of its nodes (the harness's
-log: after every step, each live node's role/term/vote/commit/last index,
read from the library's structs by the harness) against what the probes
read (a capture's events/RUN.ndjson): after the last step, every node's
last event shows the state raft-rs itself reports.  Exit 1 with the node
that differs."""
import json
import sys

ROLES = {"Follower": "StateFollower", "Candidate": "StateCandidate",
         "Leader": "StateLeader", "PreCandidate": "StatePreCandidate"}


def logged(path):
    """{node: (role, term, vote, commit, log)} of the log's last line."""
    last = open(path).read().splitlines()[-1].split()[1:]
    out = {}
    for item in last:
        node, _, rest = item.partition(":")
        role, term, vote, commit, log = rest.split("/")
        out[node] = (ROLES[role], int(term), vote, int(commit), int(log))
    return out


def probed(path):
    """{node: (role, term, vote, commit, log)} of each node's last event."""
    out = {}
    for line in open(path):
        e = json.loads(line)
        s = e["state"]
        out[e["nid"]] = (e["role"], s["term"], s["vote"], s["commit"], e["log"])
    return out


def main():
    want, got = logged(sys.argv[1]), probed(sys.argv[2])
    bad = [f"node {n}: raft-rs says {want[n]}, the probes {got.get(n)}"
           for n in sorted(want) if got.get(n) != want[n]]
    if bad or not want:
        sys.exit("; ".join(bad) or "an empty log")


main()
