"""task-refines.py SYSTEM TASK-CORPUS REF-CORPUS: the task projection
SYSTEM-task refines SYSTEM on the same runs.  Every run's task windows,
read back in order from the canonical action files, are mapped to the
windows SYSTEM makes at those steps (REF-CORPUS in event form): the
same actions, data and states, window for window, and nothing else.

dqueue     the steps at c1, p2 and c2 are dqueue's windows (the input
           without the producer); processor is dqueue's
raftkvs    {nodes} from the state by variable (logLastTerm 0 exactly
           for an empty log, at most the term); a response that changes
           nothing is no window of raftkvs, one that does is its
           BecomeFollower; the handlers' data under etcd's trace names
rwlock     {readers, writer} from pc; a call's beginning is no window of
           rwlock; the returns are its windows, named by op"""
import glob, json, os, sys

system, task_dir, ref_dir = sys.argv[1:4]


def task_runs(corpus, name):
    """Each run's task windows, in seq order."""
    runs = {}
    for path in glob.glob(os.path.join(corpus, name, "*.ndjson")):
        for line in open(path):
            w = json.loads(line)
            runs.setdefault(w["trace_id"], []).append(w)
    return {r: sorted(ws, key=lambda w: w["seq"]) for r, ws in runs.items()}


def ref_runs(corpus):
    return {os.path.basename(p)[:-len(".ndjson")]: [json.loads(l) for l in open(p)]
            for p in glob.glob(os.path.join(corpus, system, "*.ndjson"))}


def dqueue(w):
    if w["action"] not in ("ConsumerRequest", "ProducerSend", "ConsumerProcess"):
        return None
    data = {k: v for k, v in w["input"].items() if k != "producer"}
    return w["action"], data, w["post_state"]["processor"]


def dqueue_ref(w):
    return w["action"], w["data"], w["post_state"]["processor"]


ROLES = {"StateFollower": "follower", "StateCandidate": "candidate",
         "StateLeader": "leader"}
# raftkvs's data of a handler, from the task's input (etcd's trace names)
RENAME = {"RequestVoteRequest": [("logTerm", "logTerm"), ("logIndex", "index")],
          "AppendEntriesRequest": [("prevLogTerm", "logTerm"), ("prevLogIndex", "index"),
                                   ("entries", "entries"), ("commitIndex", "commit")]}


def nodes(st):
    return {"nodes": {i: {"role": ROLES[st["state"][i]], "term": st["currentTerm"][i],
                          "vote": st["votedFor"][i], "commit": st["commitIndex"][i],
                          "log": st["logLen"][i]} for i in st["state"]}}


def last_terms(st):
    """logLastTerm, which raftkvs does not show: 0 exactly for an empty
    log, else a term the node has seen."""
    for i, t in st["logLastTerm"].items():
        assert (t == 0) == (st["logLen"][i] == 0) and t <= st["currentTerm"][i], \
            f"node {i}: logLastTerm {t} with logLen {st['logLen'][i]}, term {st['currentTerm'][i]}"


def raftkvs(w):
    last_terms(w["post_state"])
    pre, post, d = nodes(w["pre_state"]), nodes(w["post_state"]), w["input"]
    action = w["action"]
    if action in ("HandleVoteResponse", "HandleAppendEntriesResponse"):
        if pre == post:
            return None
        action, d = "BecomeFollower", {"node": d["to"]}
    elif action == "ClientProposal":
        d = {"node": d["to"], "client": d["from"]}
    elif action in ("HandleVoteRequest", "HandleAppendEntries"):
        d = dict({"node": d["to"], "from": d["from"], "term": d["term"]},
                 **{new: d[old] for old, new in RENAME[d["type"]]})
    return action, d, pre, post


def raftkvs_ref(w):
    return w["action"], w["data"], w["pre_state"], w["post_state"]


def lock(st):
    pc = st["pc"]
    writer = [int(t) for t in pc if pc[t] == "writing"]
    return {"readers": sorted(int(t) for t in pc if pc[t] == "reading"),
            "writer": writer[0] if writer else None}


def rwlock(w):
    a, t = w["action"], w["input"]["thread"]
    mode = w["pre_state"]["acquiring"][str(t)]
    name = {"ReadRelease": "ReadUnlock", "WriteRelease": "WriteUnlock",
            "ReadAcquireSuccess": "ReadLock", "WriteAcquireSuccess": "WriteLock",
            "AcquireFail": mode.capitalize() + "Lock"}.get(a)
    if not name:
        return None
    if a == "AcquireFail" or w["input"].get("callType") == "try":
        name = name[:-len("Lock")] + "TryLock"
    return name, {"thread": t}, lock(w["pre_state"]), lock(w["post_state"])


def rwlock_ref(w):
    return w["action"], w["data"], w["pre_state"], w["post_state"]


view, ref_view = {"dqueue": (dqueue, dqueue_ref), "raftkvs": (raftkvs, raftkvs_ref),
                  "rwlock": (rwlock, rwlock_ref)}[system]
task, ref = task_runs(task_dir, system + "-task"), ref_runs(ref_dir)
assert sorted(task) == sorted(ref), f"runs {sorted(task)} vs {sorted(ref)}"
n = 0
for run in sorted(ref):
    mine = [m for m in map(view, task[run]) if m is not None]
    theirs = [ref_view(w) for w in ref[run]]
    for i, (a, b) in enumerate(zip(mine, theirs), 1):
        assert a == b, f"{run}: window {i}: {system}-task gives {a}, {system} {b}"
    assert len(mine) == len(theirs), f"{run}: {len(mine)} windows vs {len(theirs)}"
    n += len(mine)
print(f"{system}-task refines {system}: {n} windows the same, {len(ref)} runs")
