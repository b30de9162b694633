#!/usr/bin/env python3
"""Count the target actions of a with_tla trace straight from its events.

An independent cross-check of the etcd folder (folders/raft/raft.c): it does not
project states, it only counts the events that start each action:
ElectionTimeout = BecomeCandidate; HandleVoteRequest, HandleAppendEntries,
HandleHeartbeat = ReceiveRequestVoteRequest / ReceiveAppendEntriesRequest by
msg.type; ClientProposal = Replicate or ChangeConf events that are not the
new leader's empty entry (right after its BecomeLeader, at its log) nor a further entry
of the same proposal (same state as the node's previous Replicate).  Events
of nodes dropped from the configuration are left out, as the folder does.
Prints {action: count} as JSON.
"""
import json
import sys

counts = {}
removed = set()
prev = {}  # node -> (name, snapshot) of its previous event


def add(action):
    counts[action] = counts.get(action, 0) + 1


for line in open(sys.argv[1]):
    rec = json.loads(line)
    if "event" in rec:
        if rec.get("tag") != "trace":
            continue
        rec = rec["event"]
    nid, name = rec["nid"], rec["name"]
    if nid in removed:
        continue
    snap = (rec["role"], rec["state"]["term"], rec["state"]["commit"], rec["log"])
    before = prev.get(nid)
    prev[nid] = (name, snap)
    if name == "BecomeCandidate":
        add("ElectionTimeout")
    elif name in ("ReceiveRequestVoteRequest", "ReceiveAppendEntriesRequest"):
        kind = {"MsgVote": "HandleVoteRequest", "MsgApp": "HandleAppendEntries",
                "MsgHeartbeat": "HandleHeartbeat"}.get(rec["msg"]["type"])
        if kind:
            add(kind)
    elif name in ("Replicate", "ChangeConf"):
        if before and before[0] == "BecomeLeader" and before[1][3] == snap[3]:
            pass  # the leader's empty entry, at the log BecomeLeader shows
        elif not (before and before[0] in ("Replicate", "ChangeConf")
                  and before[1] == snap):
            add("ClientProposal")
    elif name == "ApplyConfChange":
        new = set(rec.get("prop", {}).get("cc", {}).get("newconf") or [])
        if new:
            removed |= set(rec["conf"][0]) - new
print(json.dumps(counts, sort_keys=True))
