#!/usr/bin/env python3
"""capture go's raft events (tests/go/raft.probes) against capture etcd's.

usage: check-raft.py SPEC_EVENTS ETCD_RAW

Translates the spec's flat events (named by message type, roles and
message types as names, nil proto2 fields as 0 already) as
capture/cmd/etcd-probes.c translates its records (log = unstable offset +
length - 1, ids as strings, upstream's nesting) and compares them, in order, with capture etcd's events of the
same kinds: every event that is one record's (InitState, ApplyConfChange,
BecomeLeader and Replicate need conditions on open functions or a fan-out
the spec does not have, and are left out on both sides).  Prints the first
difference and exits 1.
"""
import json
import sys

KEEP = {"BecomeFollower", "BecomeCandidate", "Commit", "Ready"}


def translate(e):
    ev = {"nid": str(e["id"]),
          "state": {"term": e["term"], "vote": str(e["vote"]), "commit": e["commit"]},
          "role": e["role"], "log": e["uoff"] + e["ulen"] - 1}
    if e["event"] in KEEP:
        return dict(name=e["event"], **ev)
    t = e["type"]
    idx, logterm, ents = e["index"], e["logterm"], e["entries"]
    if t == "MsgSnap":
        idx, logterm, ents = 0, 0, e["snap"]
    ev["msg"] = {"type": t, "term": e["mterm"], "from": str(e["from"]),
                 "to": str(e["to"]), "entries": ents, "logTerm": logterm,
                 "index": idx, "commit": e["mcommit"], "vote": str(e["mvote"]),
                 "reject": e["reject"], "rejectHint": e["hint"]}
    return dict(name=e["event"], **ev)


def main():
    with open(sys.argv[1]) as f:
        ours = [translate(json.loads(line)) for line in f]
    with open(sys.argv[2]) as f:
        theirs = [e for e in map(json.loads, f)
                  if e["name"] in KEEP or e["name"].startswith(("Send", "Receive"))]
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            print(f"event {i + 1}: spec {json.dumps(a)}\n  etcd {json.dumps(b)}")
            sys.exit(1)
    if len(ours) != len(theirs):
        print(f"{len(ours)} events from the spec, {len(theirs)} from capture etcd")
        sys.exit(1)
    print(f"{len(ours)} events identical")


if __name__ == "__main__":
    main()
