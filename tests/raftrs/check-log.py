#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-log.py LOG EVENTS: raft-rs's own account of its nodes (the harness's
-log: after every step, each live node's role/term/vote/commit/last index,
read from the library's structs by the harness) against what the probes
read (a capture's events/RUN.ndjson): the states raft-rs reports for a
node step after step appear in that node's events in the same order, and
its last event shows the state reported after the last step.  Exit 1
with the node and state that differ."""
import json
import sys

ROLES = {"Follower": "StateFollower", "Candidate": "StateCandidate",
         "Leader": "StateLeader", "PreCandidate": "StatePreCandidate"}


def logged(path):
    """{node: [(role, term, vote, commit, log)]}, one per step it was live."""
    out = {}
    for line in open(path):
        for item in line.split()[1:]:
            node, _, rest = item.partition(":")
            role, term, vote, commit, log = rest.split("/")
            out.setdefault(node, []).append(
                (ROLES[role], int(term), vote, int(commit), int(log)))
    return out


def probed(path):
    """{node: [(role, term, vote, commit, log)]}, one per event."""
    out = {}
    for line in open(path):
        e = json.loads(line)
        s = e["state"]
        out.setdefault(e["nid"], []).append(
            (e["role"], s["term"], s["vote"], s["commit"], e["log"]))
    return out


def unmatched(want, got):
    """The first state of @want not found in @got after its predecessor's."""
    at = 0
    for state in want:
        while at < len(got) and got[at] != state:
            at += 1
        if at == len(got):
            return state
    return None


def main():
    want, got = logged(sys.argv[1]), probed(sys.argv[2])
    bad = []
    for n in sorted(want):
        miss = unmatched(want[n], got.get(n, []))
        if miss:
            bad.append(f"node {n}: raft-rs reports {miss}, not among the probes' events in order")
        elif got[n][-1] != want[n][-1]:
            bad.append(f"node {n}: raft-rs ends at {want[n][-1]}, the probes at {got[n][-1]}")
    if bad or not want:
        sys.exit("; ".join(bad) or "an empty log")


main()
