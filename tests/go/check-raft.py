#!/usr/bin/env python3
"""capture go's raft events (tests/go/raft.probes) against capture etcd's.

usage: check-raft.py SPEC_EVENTS ETCD_RAW

Translates the spec's flat events as capture/cmd/etcd-probes.c translates
its records (event names by message type, roles and message types by name,
log = unstable offset + length - 1, nil proto2 fields as 0, ids as
strings) and compares them, in order, with capture etcd's events of the
same kinds: every event that is one record's (InitState, ApplyConfChange,
BecomeLeader and Replicate need conditions on open functions or a fan-out
the spec does not have, and are left out on both sides).  Prints the first
difference and exits 1.
"""
import json
import sys

ROLES = ["StateFollower", "StateCandidate", "StateLeader", "StatePreCandidate"]
TYPES = ["MsgHup", "MsgBeat", "MsgProp", "MsgApp", "MsgAppResp", "MsgVote",
         "MsgVoteResp", "MsgSnap", "MsgHeartbeat", "MsgHeartbeatResp",
         "MsgUnreachable", "MsgSnapStatus", "MsgCheckQuorum",
         "MsgTransferLeader", "MsgTimeoutNow", "MsgReadIndex",
         "MsgReadIndexResp", "MsgPreVote", "MsgPreVoteResp",
         "MsgStorageAppend", "MsgStorageAppendResp", "MsgStorageApply",
         "MsgStorageApplyResp", "MsgForgetLeader"]
KIND = {"MsgApp": "AppendEntriesRequest", "MsgHeartbeat": "AppendEntriesRequest",
        "MsgSnap": "AppendEntriesRequest", "MsgAppResp": "AppendEntriesResponse",
        "MsgHeartbeatResp": "AppendEntriesResponse", "MsgVote": "RequestVoteRequest",
        "MsgVoteResp": "RequestVoteResponse"}
KEEP = {"BecomeFollower", "BecomeCandidate", "Commit", "Ready"}


def z(v):
    return 0 if v is None else v


def translate(e):
    ev = {"nid": str(e["id"]),
          "state": {"term": e["term"], "vote": str(e["vote"]), "commit": e["commit"]},
          "role": ROLES[e["role"]], "log": e["uoff"] + e["ulen"] - 1}
    if e["event"] in KEEP:
        return dict(name=e["event"], **ev)
    t = TYPES[z(e["type"])]
    if t not in KIND:
        return None
    idx, logterm, ents = z(e["index"]), z(e["logterm"]), e["entries"]
    if t == "MsgSnap":
        idx, logterm, ents = 0, 0, z(e["snap"])
    ev["msg"] = {"type": t, "term": z(e["mterm"]), "from": str(z(e["from"])),
                 "to": str(z(e["to"])), "entries": ents, "logTerm": logterm,
                 "index": idx, "commit": z(e["mcommit"]), "vote": str(z(e["mvote"])),
                 "reject": bool(e["reject"]), "rejectHint": z(e["hint"])}
    side = "Send" if e["event"] == "Send" else "Receive"
    return dict(name=side + KIND[t], **ev)


def main():
    with open(sys.argv[1]) as f:
        ours = [t for t in (translate(json.loads(l)) for l in f) if t]
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
