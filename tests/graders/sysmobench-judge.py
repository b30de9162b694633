"""sysmobench-judge.py RULE CARD: every failure in the scorecard CARD
(capture grade --json) is a documented disagreement of kind RULE, the
windows are graded (no load error), and the kinds the rule expects occur.

none                           no window fails
spin-non-holder-release        spin: only releases of a lock another
                               thread holds (spin_unlock() checks no owner)
spin-task-non-holder-release   the same, at the task's granularity
spin-task-impossible           impossibility windows: every one whose
                               reason is the lock word's is rejected, the
                               ones about the thread's own call (its pc,
                               which the reference does not model) are
                               unscoreable: none is accepted
spin-spinning-impossible       the same of spin-spinning's: the spinner's
                               lock() returning on a held lock is rejected;
                               its other calls (who spins, which the
                               reference does not model) are the findings
etcd-task-impossible           etcd-task's impossibility windows: the
                               reference rejects every one it can score (a
                               target action, no pre-candidate) but the
                               cells docs/disagreements.md names as its
                               errors (ETCD_TASK_ACCEPTED), and accepts
                               those
list SYSTEM ROOT CARD...       not a check: each failure of the cards
                               with its cause (spin, spin-task: the
                               non-holder release; etcd: dropped, lease,
                               match-by-index or conf-switch; else
                               other), as
                               docs/disagreements.md lists them
etcd-documented                etcd: only the reference's two stated
                               approximations and CheckQuorum: a vote
                               request of a higher term ignored inside the
                               leader lease (the voter's state unchanged);
                               an append the reference matches by index
                               (m.index <= log) whose log raft cut or kept
                               otherwise (it compares terms)"""
import glob, json, os, sys


def window(f):
    """The window at file:line, in event form (a stream line's pre-state
    is the state of the line before)."""
    prev = None
    with open(f["file"]) as fh:
        for i, line in enumerate(fh, 1):
            w = json.loads(line)
            if i == f["line"]:
                if "state" in w:
                    w = {"action": w["action"], "data": w["data"],
                         "pre_state": prev["state"], "post_state": w["state"]}
                return w
            prev = w
    raise SystemExit(f"{f['file']}:{f['line']}: no such window")

def data(w):
    return w.get("data", w.get("input"))

def pre(w):
    return w["pre_state"]

def non_holder_release(w):
    p, t = pre(w), data(w)["thread"]
    return w["action"] == "ReleaseLock" and p["lockHeld"] and p["lockHolder"] != t

def task_non_holder_release(w):
    p, t = pre(w), str(data(w)["thread"])
    return w["action"] == "Release" and p["lockState"] == "locked" and p["pc"][t] == "idle"

def etcd_lease(w):
    """CheckQuorum's leader lease: a vote request of a higher term that
    leaves the voter's state alone (raft.go, Step: inLease)."""
    d = data(w)
    n, after = pre(w)["nodes"][d["node"]], w["post_state"]["nodes"][d["node"]]
    return w["action"] == "HandleVoteRequest" and d["term"] > n["term"] and after == n

def etcd_match_by_index(w):
    """An append the reference matches by index (m.index <= log) whose log
    raft cut or kept otherwise (maybeAppend compares terms)."""
    d = data(w)
    n, after = pre(w)["nodes"][d["node"]], w["post_state"]["nodes"][d["node"]]
    return (w["action"] == "HandleAppendEntries" and d["index"] <= n["log"]
            and after["log"] != max(n["log"], d["index"] + d["entries"]))

def etcd_conf_switch(w):
    """A window that took in a configuration switch the application made
    (its data's conf): the commit a leader's smaller quorum gives there
    (switchToConfig's maybeCommit) is no effect of the message."""
    return "conf" in data(w)

def etcd_dropped(w):
    """A leader's proposal raft dropped (its data's dropped: past its
    MaxUncommittedEntriesSize, ErrProposalDropped): nothing changes."""
    return w["action"] == "ClientProposal" and data(w).get("dropped") is True


def etcd_documented(w):
    return etcd_lease(w) or etcd_match_by_index(w)

# The causes a failure is put under by "list" (docs/disagreements.md).
CAUSES = {"spin": [("non-holder-release", non_holder_release)],
          "spin-task": [("non-holder-release", task_non_holder_release)],
          "etcd": [("dropped", etcd_dropped), ("lease", etcd_lease),
                   ("match-by-index", etcd_match_by_index),
                   ("conf-switch", etcd_conf_switch)]}

def cause(system, w):
    return next((name for name, kind in CAUSES[system] if kind(w)), "other")

if sys.argv[1] == "list":
    # list SYSTEM ROOT CARD...: each failure as "CAUSE FILE:LINE ACTION",
    # FILE relative to ROOT, sorted: what docs/disagreements.md lists.
    system, root = sys.argv[2], sys.argv[3]
    rows = []
    for path in sys.argv[4:]:
        for f in json.load(open(path))["failures"]:
            rows.append(f"{cause(system, window(f))} "
                        f"{os.path.relpath(f['file'], root)}:{f['line']} {f['action']}")
    def key(r):
        c, at, _ = r.split(" ")
        f, line = at.rsplit(":", 1)
        return c, f, int(line)
    print("\n".join(sorted(rows, key=key)))
    sys.exit(0)
rule, card = sys.argv[1], json.load(open(sys.argv[2]))

LOCK_WORD = ("the lock word is taken only when free", "a try fails only on a held lock",
             "the spinner's lock() returns only once the holder")

# The impossible cells of etcd-task's the etcd reference accepts: those
# docs/disagreements.md names as its errors ("Impossibility windows a
# reference accepts"), each with the code that decides it.
def page_accepted(reference):
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../docs/disagreements.md")
    cells, inside = set(), False
    for line in open(page):
        if line.startswith("## "):
            inside = line.strip() == "## Impossibility windows a reference accepts"
        elif inside and line.startswith(f"| `{reference}` |"):
            cells.add(line.split("|")[2].strip().strip("`"))
    return cells


ETCD_TASK_ACCEPTED = page_accepted("reference_etcd.js")
ETCD_TARGETS = {"ElectionTimeout", "HandleVoteRequest", "ClientProposal",
                "HandleAppendEntries", "HandleHeartbeat"}


def etcd_task_impossible(d):
    """The failures the judge expects of the windows in directory d, and
    how many of them pass."""
    expect, accepted = set(), 0
    for path in sorted(glob.glob(os.path.join(d, "*.ndjson"))):
        for i, line in enumerate(open(path), 1):
            w = json.loads(line)
            states = list(w["pre_state"]["state"].values()) + list(w["post_state"]["state"].values())
            if w["action"] not in ETCD_TARGETS or "StatePreCandidate" in states:
                continue
            if w["trace_id"] in ETCD_TASK_ACCEPTED:
                accepted += 1
            else:
                expect.add((path, i))
    return expect, accepted


failures = [window(f) for f in card["failures"]]
if rule == "none":
    assert not failures, f"{len(failures)} failures: {card['failures'][:2]}"
elif rule in ("spin-task-impossible", "spin-spinning-impossible"):
    if card["all"]["windows"] == 0:
        sys.exit("no impossibility windows")
    # spin-task's view leaves the thread's own call unscoreable: the
    # reference accepts none (docs/disagreements.md names none of it).
    assert rule != "spin-task-impossible" or card["all"]["passed"] == 0, \
        f"the reference accepts {card['all']['passed']} of spin-task's impossibility windows"
    failed = {(f["file"], f["line"]) for f in card["failures"]}
    d = os.path.dirname(card["failures"][0]["file"]) if card["failures"] else None
    assert d, "the reference rejects none"
    for path in sorted(glob.glob(os.path.join(d, "*.ndjson"))):
        for i, line in enumerate(open(path), 1):
            w = json.loads(line)
            if w["impossible"].startswith(LOCK_WORD):
                assert (path, i) in failed, f"{path}:{i}: the reference accepts it: {w['impossible']}"
elif rule == "etcd-task-impossible":
    failed = {(f["file"], f["line"]) for f in card["failures"]}
    assert failed, "the reference rejects none"
    expect, accepted = etcd_task_impossible(os.path.dirname(card["failures"][0]["file"]))
    assert failed == expect, f"rejected {sorted(failed - expect)} beyond, accepted {sorted(expect - failed)} outside the findings"
    assert card["all"]["passed"] == accepted, \
        f"{card['all']['passed']} accepted, the findings are {accepted}"
else:
    kind = {"spin-non-holder-release": non_holder_release,
            "spin-task-non-holder-release": task_non_holder_release,
            "etcd-documented": etcd_documented}[rule]
    assert failures, f"{rule}: the documented disagreement did not occur"
    for f, w in zip(card["failures"], failures):
        assert kind(w), f"{f['file']}:{f['line']}: {f['action']} fails, not a {rule}: {f['why'][:200]}"
print(f"{rule}: {card['all']['failed']} failed, {card['all']['passed']} passed, "
      f"{card['all']['unscoreable']} unscoreable")
