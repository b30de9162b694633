"""tlc-judge.py: what TLC rejects of capture's windows, and what it accepts
of their impossibility windows, by cause, against docs/disagreements.md
("Graded by TLC" and "Impossibility windows a reference accepts").

  tlc-judge.py graded CORPUS CARD...  one line "SPEC CAUSE CORPUS N" for
                                      each cause of the failures of the
                                      scorecards (capture grade --tlc
                                      --json), N windows; "SPEC accepts
                                      CELL" for each impossibility window's
                                      cell TLC accepts
  tlc-judge.py page PAGE CORPUS...    the same lines, as the page says them
                                      for those corpora

A failure's cause is what the spec and the system disagree on (below); one
of no known cause is "other", which the page never lists."""
import json, os, sys
from collections import Counter


def window(f):
    with open(f["file"]) as fh:
        for i, line in enumerate(fh, 1):
            if i == f["line"]:
                return json.loads(line)
    raise SystemExit(f"{f['file']}:{f['line']}: no such window")


def actor_pc(w):
    return w["pre_state"]["pc"][str(w["input"]["thread"])]


def lease(w):
    """CheckQuorum's leader lease: a vote request of a higher term that
    leaves the voter as it was (raft.go, Step: inLease)."""
    to, pre, post = w["input"]["to"], w["pre_state"], w["post_state"]
    return (w["input"]["term"] > pre["currentTerm"][to] and
            all(pre[v][to] == post[v][to] for v in pre))


# SPEC -> [(CAUSE, predicate over the canonical window)], docs/disagreements.md.
CAUSES = {
    "spin.tla": [
        ("lock-free", lambda w: w["action"] == "TryAcquireBlocking" and
         w["pre_state"]["lockState"] == "unlocked"),
        ("holder-lock", lambda w: w["action"] == "TryAcquireBlocking" and actor_pc(w) == "locked"),
        ("non-holder-release", lambda w: w["action"] == "Release" and actor_pc(w) == "idle"),
    ],
    "dqueue.tla": [
        ("value-beyond-buffer", lambda w: w["action"] == "ProducerSend" and
         w["input"]["value"] not in range(3)),
    ],
    "etcdraft.tla": [
        ("lease", lambda w: w["action"] == "HandleVoteRequest" and lease(w)),
        # a leader's proposal raft dropped: nothing changes (etcd-task's
        # input is the node alone; etcd's data says "dropped")
        ("dropped", lambda w: w["action"] == "ClientProposal" and w["pre_state"] == w["post_state"]),
    ],
    "locksvc.tla": [],
}


def spec_of(card):
    # "TLC on PATH/SPEC.tla, mapping MAP"
    return os.path.basename(card["grader"].split(" on ", 1)[1].split(", mapping ", 1)[0])


def cause(spec, w):
    return next((name for name, kind in CAUSES[spec] if kind(w)), "other")


def graded(corpus, paths):
    counts, accepts = Counter(), set()
    for path in paths:
        card = json.load(open(path))
        spec = spec_of(card)
        for f in card["failures"]:
            counts[(spec, cause(spec, window(f)))] += 1
        for a in card["accepted"]:
            accepts.add(f"{spec} accepts {window(a)['trace_id']}")
    return sorted([f"{s} {c} {corpus} {n}" for (s, c), n in counts.items()] + list(accepts))


def section(page, title):
    lines, inside = [], False
    for line in open(page):
        if line.startswith("## "):
            inside = line.strip() == f"## {title}"
        elif inside and line.startswith("| ") and not line.startswith("| ---"):
            lines.append([c.strip() for c in line.strip().strip("|").split("|")])
    return lines[1:]  # the header row


def page(path, corpora):
    out = []
    # | spec | cause | corpus N, corpus N | why |
    for spec, kind, counts, *_ in section(path, "Graded by TLC"):
        for item in counts.split(","):
            corpus, n = item.split()
            if corpus in corpora:
                out.append(f"{spec.strip('`')} {kind.strip('`')} {corpus} {n}")
    # | reference | cell | window | deciding code |
    for ref, cell, *_ in section(path, "Impossibility windows a reference accepts"):
        if ref.strip("`").endswith(".tla") and "impossible" in corpora:
            out.append(f"{ref.strip('`')} accepts {cell.strip('`')}")
    return sorted(out)


if __name__ == "__main__":
    if sys.argv[1] == "graded":
        lines = graded(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "page":
        lines = page(sys.argv[2], set(sys.argv[3:]))
    else:
        sys.exit(__doc__)
    for line in lines:
        print(line)
