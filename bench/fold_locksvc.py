#!/usr/bin/env python3
"""A straightforward Python fold of a PGo locksvc run: the bench's baseline.

Usage: fold_locksvc.py RUN_DIR OUT_DIR

Same job as `capture fold locksvc` (capture/readers/pgo.c, folders/locksvc/locksvc.c): merge
the trace-*.log files by vector clock (ready = every dependency emitted;
tie-break: smallest clock sum, then archetype, then self), drop aborted
sections, write the normalized events and the stream-form windows
{holder, waiters}.  It checks the own clock ticks by one; it is a baseline
for speed, not a second implementation of every check.
"""
import glob
import json
import os
import sys

run, out = sys.argv[1], sys.argv[2]
os.makedirs(out + "/events", exist_ok=True)
os.makedirs(out + "/locksvc", exist_ok=True)
name = os.path.basename(run.rstrip("/"))
files = [open(p) for p in sorted(glob.glob(run + "/trace-*.log"))]
heads = [json.loads(f.readline()) for f in files]
procs = [(h["archetypeName"], h["self"]) for h in heads]
key = {p: (p[0], int(p[1])) for p in procs}
emitted = {p: 0 for p in procs}
events = open("%s/events/%s.ndjson" % (out, name), "w")
windows = open("%s/locksvc/%s.ndjson" % (out, name), "w")
holder, waiters = None, set()
windows.write(json.dumps({"state": {"holder": None, "waiters": []}}) + "\n")


def clock(rec):
    return {(a, s): n for (a, s), n in rec["clock"]}


clocks = [clock(h) for h in heads]


def window(action, client):
    windows.write(json.dumps({"action": action, "data": {"client": client},
                              "state": {"holder": holder, "waiters": sorted(waiters)}}) + "\n")


def label(rec):
    for e in rec["csElements"]:
        if e["tag"] == "write" and e["name"]["name"] == ".pc":
            return e["oldValue"].strip('"')


def value(rec, tag, var):
    for e in rec["csElements"]:
        if e["tag"] == tag and e["name"]["name"] == var:
            return e
    return None


while True:
    best = None
    for i, h in enumerate(heads):
        if h is None:
            continue
        c = clocks[i]
        if all(n <= emitted[p] for p, n in c.items() if p != procs[i]):
            k = (sum(c.values()), key[procs[i]])
            if best is None or k < best[0]:
                best = (k, i)
    if best is None:
        if any(h is not None for h in heads):
            sys.exit("merge stuck")
        break
    i = best[1]
    rec, p = heads[i], procs[i]
    emitted[p] += 1
    assert clocks[i][p] == emitted[p]
    line = files[i].readline()
    heads[i] = json.loads(line) if line else None
    clocks[i] = clock(heads[i]) if line else None
    if rec["isAbort"]:
        continue
    for k in ("startTime", "endTime", "isAbort"):
        del rec[k]
    events.write(json.dumps(rec, separators=(",", ":")) + "\n")
    lab = label(rec)
    me = int(rec["self"])
    if lab == "AClient.acquireLock":
        waiters.add(me)
        window("ClientLockRequest", me)
    elif lab == "AClient.criticalSection":
        assert holder == me and value(rec, "read", "network")["value"] == "3"
        window("ClientCriticalSection", me)
    elif lab == "AClient.unlock":
        assert holder == me
        holder = None
        window("ClientUnlockRequest", me)
    elif lab == "AServer.serverRespond":
        w = value(rec, "write", "network")
        if w and w["value"] == "3":
            c = int(w["indices"][0])
            assert holder is None and c in waiters
            holder = c
            waiters.discard(c)
            window("ServerGrantLock", c)
