"""task-counts.py SYSTEM CORPUS RAW...: every action file of the task
projection CORPUS/SYSTEM/ holds as many windows as the raw input shows
steps of it, counted here from the raw records without the folder:

dqueue-task   RAW the PGo run directories: committed records by the
              label their .pc write leaves
raftkvs-task  RAW the PGo run directories: committed AServer.handleMsg
              records by the type of the message m they read
rwlock-task   RAW unused: CORPUS/events/ (the normalized events): lock
              calls by op, their returns by op and outcome, unlocks
Prints the counts per action."""
import collections, glob, json, os, re, sys

system, corpus, raw = sys.argv[1], sys.argv[2], sys.argv[3:]


def records(runs):
    for run in runs:
        for path in sorted(glob.glob(os.path.join(run, "trace-*.log"))):
            for line in open(path):
                r = json.loads(line)
                if not r["isAbort"]:
                    yield r


def label_left(r):
    for e in r["csElements"]:
        if e["tag"] == "write" and e["name"]["name"] == ".pc":
            return json.loads(e["oldValue"]).split(".", 1)[1]
    return None


def dqueue(runs):
    names = {"c": "ConsumerLoop", "c1": "ConsumerRequest", "c2": "ConsumerProcess",
             "p": "ProducerLoop", "p1": "ProducerReceive", "p2": "ProducerSend"}
    return collections.Counter(names[label_left(r)] for r in records(runs))


def raftkvs(runs):
    names = {"rvq": "HandleVoteRequest", "rvp": "HandleVoteResponse",
             "apq": "HandleAppendEntries", "app": "HandleAppendEntriesResponse",
             "cpq": "ClientProposal", "cgq": "ClientProposal"}
    got = collections.Counter()
    for r in records(runs):
        if r["archetypeName"] != "AServer" or label_left(r) != "handleMsg":
            continue
        m = next(e["value"] for e in r["csElements"]
                 if e["tag"] == "read" and e["name"]["name"] == "m")
        got[names[re.search(r'"mtype"\) :> \("(\w+)"', m).group(1)]] += 1
    return got


def rwlock(_):
    calls = {"read_lock": "ReadBlocking", "read_trylock": "ReadNonBlocking",
             "write_lock": "WriteBlocking", "write_trylock": "WriteNonBlocking"}
    got = collections.Counter()
    for path in glob.glob(os.path.join(corpus, "events", "*.ndjson")):
        for line in open(path):
            e = json.loads(line)
            op, ev = e["op"], e["event"]
            if ev == "call" and op in calls:
                got[calls[op]] += 1
            elif ev == "return" and op.endswith("unlock"):
                got[op.split("_")[0].capitalize() + "Release"] += 1
            elif ev == "return":
                got[op.split("_")[0].capitalize() + "AcquireSuccess"
                    if e["ok"] else "AcquireFail"] += 1
    return got


want = {"dqueue-task": dqueue, "raftkvs-task": raftkvs, "rwlock-task": rwlock}[system](raw)
have = collections.Counter()
for path in glob.glob(os.path.join(corpus, system, "*.ndjson")):
    have[os.path.basename(path)[:-len(".ndjson")]] = sum(1 for _ in open(path))
for action, n in want.items():
    assert have[action] == n, f"{action}: {have[action]} windows, the raw input shows {n}"
print(" ".join(f"{a} {have[a]}" for a in sorted(have)))
