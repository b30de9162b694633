"""etcd-task-checks.py TASK ETCD: the etcd-task canonical corpus TASK holds
etcd's windows (ETCD, the same traces folded by etcd in event form), each
state regrouped by variable (currentTerm, state, votedFor, commitIndex,
logLen, logLastTerm) and each message handler's input the message under
the task's names; logLastTerm is sound (0 exactly for an empty log, never
above the node's term; a vote request's logIndex and logTerm are the
candidate's logLen and logLastTerm when it sent it); every target action
has windows, among them a PreCandidate, a rejected vote and a rejected
append.  Prints the windows per action."""
import json, os, sys

task, etcd = sys.argv[1], sys.argv[2]
ROLE = {"follower": "StateFollower", "candidate": "StateCandidate",
        "leader": "StateLeader", "precandidate": "StatePreCandidate"}
TARGETS = ["ElectionTimeout", "HandleVoteRequest", "ClientProposal",
           "HandleAppendEntries", "HandleHeartbeat"]

windows = {}
for name in os.listdir(os.path.join(task, "etcd-task")):
    if name.endswith(".ndjson"):
        for line in open(os.path.join(task, "etcd-task", name)):
            w = json.loads(line)
            windows[(w["trace_id"], w["seq"])] = w

def by_variable(st):
    n = st["nodes"]
    return {"currentTerm": {i: n[i]["term"] for i in n},
            "state": {i: ROLE[n[i]["role"]] for i in n},
            "votedFor": {i: n[i]["vote"] for i in n},
            "commitIndex": {i: n[i]["commit"] for i in n},
            "logLen": {i: n[i]["log"] for i in n}}

def input_of(action, d):
    names = {"HandleVoteRequest": [("index", "logIndex"), ("logTerm", "logTerm")],
             "HandleAppendEntries": [("index", "prevLogIndex"), ("logTerm", "prevLogTerm"),
                                     ("entries", "entries"), ("commit", "commitIndex")],
             "HandleHeartbeat": [("commit", "commitIndex")]}.get(action)
    if names is None:
        return None
    out = {"from": d["from"], "to": d["node"], "term": d["term"]}
    out.update({new: d[old] for old, new in names})
    return out

seen = 0
for run in sorted(os.listdir(os.path.join(etcd, "etcd"))):
    trace = run[:-len(".ndjson")]
    for seq, line in enumerate(open(os.path.join(etcd, "etcd", run)), 1):
        e = json.loads(line)
        w = windows.get((trace, seq))
        assert w and w["action"] == e["action"], f"{trace}:{seq}: {e['action']} has no window"
        for k in ("pre_state", "post_state"):
            got = {v: w[k][v] for v in w[k] if v != "logLastTerm"}
            assert got == by_variable(e[k]), f"{trace}:{seq}: {k} {got} vs {by_variable(e[k])}"
            for i, t in w[k]["logLastTerm"].items():
                assert (t == 0) == (w[k]["logLen"][i] == 0), f"{trace}:{seq}: node {i} logLastTerm {t}"
                assert t <= w[k]["currentTerm"][i], f"{trace}:{seq}: node {i} logLastTerm {t} > term"
        want = input_of(e["action"], e["data"])
        if want is not None:
            got = {k: v for k, v in w["input"].items() if k != "type"}
            assert got == want, f"{trace}:{seq}: input {got}, message {want}"
        seen += 1
assert seen == len(windows), f"{len(windows) - seen} windows more than etcd's"

def sent_by(w):
    i = w["input"]
    return w["pre_state"]["logLen"][i["from"]], w["pre_state"]["logLastTerm"][i["from"]]

counts = {}
for w in windows.values():
    counts[w["action"]] = counts.get(w["action"], 0) + 1
for a in TARGETS:
    assert counts.get(a), f"no {a} window: a harness gap"
votes = [w for w in windows.values() if w["action"] == "HandleVoteRequest"]
for w in votes:
    if w["pre_state"]["state"][w["input"]["from"]] == "StateCandidate":
        assert (w["input"]["logIndex"], w["input"]["logTerm"]) == sent_by(w), \
            f"{w['trace_id']}:{w['seq']}: the request's log {w['input']} is not the candidate's {sent_by(w)}"
rejected = [w for w in votes if w["post_state"]["votedFor"][w["actor"]] != w["input"]["from"]]
assert rejected, "no rejected vote"
apps = [w for w in windows.values() if w["action"] == "HandleAppendEntries"]
rej_app = [w for w in apps if w["input"]["entries"] and
           w["post_state"]["logLen"] == w["pre_state"]["logLen"] and
           w["input"]["prevLogIndex"] + w["input"]["entries"] > w["pre_state"]["logLen"][w["actor"]]]
assert rej_app, "no rejected append"
pre = [w for w in windows.values() if "StatePreCandidate" in w["post_state"]["state"].values()]
assert pre, "no PreCandidate"
print(" ".join(f"{a}={counts[a]}" for a in sorted(counts)),
      f"rejected-votes={len(rejected)} rejected-appends={len(rej_app)} precandidate-windows={len(pre)}")
