#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One violation planted in a raw stream of fle.probes's events.

    plant.py WHAT IN OUT

WHAT: clock (a decision's logical clock lower than its process showed
before), unsent (the send of the first notification received taken out),
leaders (a follower's epoch taken as a second leader), follower (a
follower's epoch taken following another server), votes (a poll's count
of votes one more), leave (a leader leaving as a follower), outside (an
election's start taken out, not a process's first), event (an event fle.probes has not).
Prints the line the folder must name.
"""
import json
import sys

what, src, dst = sys.argv[1:4]
lines = [json.loads(l) for l in open(src)]
out = list(lines)
at = None


def first(pred, start=0):
    return next(i for i in range(start, len(lines)) if pred(lines[i]))


if what == "clock":
    at = first(lambda e: e["event"] == "Decide")
    out[at] = dict(lines[at], clock=lines[at]["clock"] - 1)
elif what == "unsent":
    r = lines[first(lambda e: e["event"] == "Receive")]
    keys = ("from", "to", "state", "leader", "zxid", "round", "epoch")
    s = first(lambda e: e["event"] == "Send" and all(e[k] == r[k] for k in keys))
    del out[s]
    at = first(lambda e: e["event"] == "Receive") - 1
elif what in ("leaders", "follower"):
    at = first(lambda e: e["event"] == "Epoch" and e["state"] == "FOLLOWING")
    e = dict(lines[at])
    if what == "leaders":
        e.update(state="LEADING", leader=e["sid"])
    else:
        e["leader"] = next(s for s in (1, 2, 3) if s not in (e["sid"], e["leader"]))
    out[at] = e
elif what == "votes":
    at = first(lambda e: e["event"] == "Dequeue" and e["votes"] > 0)
    out[at] = dict(lines[at], votes=lines[at]["votes"] + 1)
elif what == "leave":
    at = first(lambda e: e["event"] == "Leave" and e["state"] == "LEADING")
    out[at] = dict(lines[at], state="FOLLOWING")
elif what == "outside":
    procs = set()
    b = first(lambda e: e["event"] == "Begin" and (e["proc"] in procs or procs.add(e["proc"])))
    del out[b]
    at = first(lambda e: e["event"] == "Dequeue" and e["sid"] == lines[b]["sid"], b) - 1
elif what == "event":
    at = 2
    out[at] = dict(lines[at], event="Vote")
else:
    sys.exit(f"plant.py: no such violation {what}")
with open(dst, "w") as f:
    for e in out:
        f.write(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n")
print(at + 1)
