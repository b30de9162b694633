#!/usr/bin/env python3
"""Check that each scenario of tests/raft/scenarios made raft do what its words
are for, from the windows alone (stream form: a {"state"} line, then
{"action", "data", "state"} lines whose state is the post-state).

Usage: word-effects.py DIR  (the etcd/ directory of a capture)
Prints one "ok - NAME" or "not ok - NAME: why" line per check.
"""
import json
import os
import sys


def windows(path):
    """(action, data, pre, post) of every window of a stream-form file."""
    lines = [json.loads(line) for line in open(path)]
    out = []
    for prev, cur in zip(lines, lines[1:]):
        out.append((cur["action"], cur["data"], prev["state"]["nodes"],
                    cur["state"]["nodes"]))
    return out


def acting(w):
    """The acting node's (pre, post) slices."""
    node = w[1]["node"]
    return w[2].get(node), w[3].get(node)


def duplicate_handled(ws):
    """Two HandleAppendEntries in a row with the same message: the copy."""
    return any(a[0] == b[0] == "HandleAppendEntries" and a[1] == b[1]
               and acting(b)[0] == acting(b)[1] for a, b in zip(ws, ws[1:]))


def append_rejected(ws):
    return any(w[0] == "HandleAppendEntries" and w[1]["index"] > acting(w)[0]["log"]
               for w in ws)


def proposals(ws):
    return sum(w[0] == "ClientProposal" for w in ws)


def log_cut(ws):
    """A follower's uncommitted suffix overwritten: log shrinks, term rose."""
    return any(w[0] == "HandleAppendEntries" and acting(w)[1]["log"] < acting(w)[0]["log"]
               for w in ws)


def two_leaders(ws):
    return any(sum(s["role"] == "leader" for s in w[3].values()) == 2 for w in ws)


def restarts(ws):
    """Restart windows that keep term, vote and log and end as follower."""
    good = 0
    for w in ws:
        if w[0] != "Restart":
            continue
        pre, post = acting(w)
        good += (post["role"] == "follower" and post["term"] == pre["term"] and
                 post["vote"] == pre["vote"] and post["log"] == pre["log"])
    return good


def caught_up(ws, node):
    last = ws[-1][3]
    return last[node]["log"] == max(s["log"] for s in last.values())


def snapshot_installed(ws):
    return any(w[0] == "HandleSnapshot" and acting(w)[1]["log"] == w[1]["index"]
               and acting(w)[1]["commit"] == w[1]["index"] > acting(w)[0]["log"]
               for w in ws)


def precandidate_kept_term(ws):
    return any(w[0] == "BecomePreCandidate" and acting(w)[1]["role"] == "precandidate"
               and acting(w)[1]["term"] == acting(w)[0]["term"] for w in ws)


def precandidate_back(ws):
    return any(w[0] == "HandleHeartbeat" and acting(w)[0]["role"] == "precandidate"
               and acting(w)[1]["role"] == "follower"
               and acting(w)[1]["term"] == acting(w)[0]["term"] for w in ws)


def lease_ignored(ws):
    """A vote request of a higher term that changes nothing (leader lease)."""
    return any(w[0] == "HandleVoteRequest" and w[1]["term"] > acting(w)[0]["term"]
               and acting(w)[0] == acting(w)[1] for w in ws)


def quorum_lost(ws):
    """A leader steps down without a higher term: check-quorum."""
    return any(w[0] == "BecomeFollower" and acting(w)[0]["role"] == "leader"
               and acting(w)[1]["term"] == acting(w)[0]["term"] for w in ws)


def heartbeat_commit(ws):
    return any(w[0] == "HandleHeartbeat" and acting(w)[1]["commit"] > acting(w)[0]["commit"]
               for w in ws)


def rose_after(a, b):
    """Window B is A's node becoming a follower of a later term: the
    rejected pre-vote whose receipt upstream does not trace (the probes
    do), split from A's window by the fold."""
    return (b[0] == "BecomeFollower" and b[1]["node"] == a[1]["node"]
            and acting(b)[1]["term"] > acting(b)[0]["term"] == acting(a)[1]["term"])


def split_rise(ws, action, role, changed):
    """A stale message of ACTION at a ROLE, with CHANGED(pre, post) and no
    term rise in its window, then a later term in a window of its own."""
    return any(a[0] == action and acting(a)[0]["role"] == role
               and acting(a)[1]["term"] == acting(a)[0]["term"] > a[1]["term"]
               and changed(*acting(a)) and rose_after(a, b)
               for a, b in zip(ws, ws[1:]))


def held_commit(ws, role):
    """A heartbeat of the node's term advancing its commit, then a later
    term before its Ready, in a window of its own."""
    return any(a[0] == "HandleHeartbeat" and acting(a)[0]["role"] == role
               and a[1]["term"] == acting(a)[0]["term"] == acting(a)[1]["term"]
               and acting(a)[1]["commit"] > acting(a)[0]["commit"]
               and rose_after(a, b) for a, b in zip(ws, ws[1:]))


def same_log(pre, post):
    return post["log"] == pre["log"]


def conflict_replaced(ws):
    """A pre-candidate's append of a later term that keeps its log length:
    the uncommitted suffix replaced."""
    return any(w[0] == "HandleAppendEntries" and acting(w)[0]["role"] == "precandidate"
               and w[1]["term"] == acting(w)[1]["term"] > acting(w)[0]["term"]
               and w[1]["index"] < acting(w)[0]["log"] == acting(w)[1]["log"] for w in ws)


def stale_snapshot(ws, role):
    return any(w[0] == "HandleSnapshot" and acting(w)[0]["role"] == role
               and w[1]["term"] < acting(w)[0]["term"] and acting(w)[0] == acting(w)[1]
               for w in ws)


def stale_beat_commit(ws, new_term):
    """A leader's heartbeat of a lower term whose window took in the commit
    a configuration switch made, then a later term in a window of its own
    or not."""
    return any(a[0] == "HandleHeartbeat" and acting(a)[0]["role"] == "leader"
               and a[1]["term"] < acting(a)[0]["term"] == acting(a)[1]["term"]
               and acting(a)[1]["commit"] > acting(a)[0]["commit"]
               and rose_after(a, b) == new_term
               for a, b in zip(ws, ws[1:] + [("", {"node": ""}, {}, {})]))


def dropped_then_empty(ws):
    """A leader's proposal that left its log, then one appended."""
    props = [acting(w) for w in ws if w[0] == "ClientProposal"
             and acting(w)[0]["role"] == "leader"]
    return [post["log"] > pre["log"] for pre, post in props][-2:] == [False, True]


def membership(ws, added, removed):
    return ([w[1]["node"] for w in ws if w[0] == "AddNode"] == added and
            [w[1]["node"] for w in ws if w[0] == "RemoveNode"] == removed)


def joined_appends(ws, node):
    """The added node's log grows by the leader's appends."""
    return any(w[0] == "HandleAppendEntries" and w[1]["node"] == node
               and acting(w)[1]["log"] > acting(w)[0]["log"] for w in ws)


CHECKS = {
    "10-messages": [
        ("a duplicated append is handled twice, the second time a no-op", duplicate_handled),
        ("an append after a lost or reordered one is rejected", append_rejected),
        ("the proposal given to a follower reaches the leader (4 proposals)",
         lambda ws: proposals(ws) == 4),
    ],
    "11-partition": [
        ("two leaders of different terms during the partition", two_leaders),
        ("the old leader's uncommitted entries are overwritten", log_cut),
    ],
    "12-crash-restart": [
        ("two restarts keep term, vote and log", lambda ws: restarts(ws) == 2),
        ("the restarted nodes catch up", lambda ws: caught_up(ws, "1") and caught_up(ws, "3")),
    ],
    "13-snapshot": [
        ("node 3 installs the leader's snapshot", snapshot_installed),
        ("node 3 catches up after the snapshot", lambda ws: caught_up(ws, "3")),
    ],
    "14-prevote": [
        ("a pre-candidate keeps its term", precandidate_kept_term),
        ("a pre-candidate returns to follower at the same term", precandidate_back),
    ],
    "15-checkquorum": [
        ("a vote inside the leader lease is ignored", lease_ignored),
        ("an isolated leader steps down at the same term", quorum_lost),
    ],
    "16-heartbeat-commit": [
        ("a follower learns the commit index from a heartbeat", heartbeat_commit),
    ],
    "17-stale-append": [
        ("a pre-candidate's uncommitted entry replaced by a later term's", conflict_replaced),
    ],
    "18-stale-snapshot": [
        ("a pre-candidate's stale snapshot window, then a later term of its own",
         lambda ws: split_rise(ws, "HandleSnapshot", "precandidate", same_log)),
    ],
    "19-stale-snapshot-follower": [
        ("a follower's stale snapshot window, then a later term of its own",
         lambda ws: split_rise(ws, "HandleSnapshot", "follower", same_log)),
    ],
    "20-stale-snapshot-candidate": [
        ("a candidate's stale snapshot window, then a later term of its own",
         lambda ws: split_rise(ws, "HandleSnapshot", "candidate", same_log)),
    ],
    "21-stale-snapshot-leader": [
        ("a leader ignores a stale snapshot", lambda ws: stale_snapshot(ws, "leader")),
        ("a leader's stale snapshot window, then a later term of its own",
         lambda ws: split_rise(ws, "HandleSnapshot", "leader", same_log)),
    ],
    "24-candidate-step-down": [
        ("a candidate follows a later term no traced message brought",
         lambda ws: any(w[0] == "BecomeFollower" and acting(w)[0]["role"] == "candidate"
                        and acting(w)[1]["term"] > acting(w)[0]["term"] for w in ws)),
    ],
    "22-held-heartbeat": [
        ("a held pre-candidate's heartbeat commits, then a later term (its own window) before its Ready",
         lambda ws: held_commit(ws, "precandidate")),
    ],
    "23-held-heartbeat-follower": [
        ("a held follower's heartbeat commits, then a later term (its own window) before its Ready",
         lambda ws: held_commit(ws, "follower")),
    ],
    "25-conf-heartbeat": [
        ("a leader's stale heartbeat window takes in the commit its applied "
         "removal makes", lambda ws: stale_beat_commit(ws, False)),
        ("nodes 2 and 3 removed", lambda ws: membership(ws, [], ["2", "3"])),
    ],
    "26-conf-dropped": [
        ("a leader's conf change dropped, the retry appended", dropped_then_empty),
        ("no one removed: the retry was an empty entry",
         lambda ws: membership(ws, [], [])),
    ],
    "27-conf-heartbeat-term": [
        ("a leader's stale heartbeat window takes in a switch's commit, "
         "then a later term of its own", lambda ws: stale_beat_commit(ws, True)),
        ("node 4 added, then removed", lambda ws: membership(ws, ["4"], ["4"])),
    ],
    "29-no-forwarding": [
        ("only the leader's conf change is a proposal", lambda ws: proposals(ws) == 1),
        ("node 3 removed once", lambda ws: membership(ws, [], ["3"])),
    ],
    "30-precandidate-grant": [
        ("a pre-candidate grants a vote of its own term",
         lambda ws: any(w[0] == "HandleVoteRequest" and acting(w)[0]["role"] == "precandidate"
                        and acting(w)[1]["vote"] == w[1]["from"]
                        and acting(w)[1]["term"] == acting(w)[0]["term"] for w in ws)),
    ],
    "31-lease-then-campaign": [
        ("a vote ignored in the lease, then a pre-candidacy of its own",
         lambda ws: any(a[0] == "HandleVoteRequest" and acting(a)[0] == acting(a)[1]
                        and b[0] == "BecomePreCandidate" and b[1]["node"] == a[1]["node"]
                        for a, b in zip(ws, ws[1:]))),
    ],
    "28-add-node": [
        ("node 4 added and node 3 removed", lambda ws: membership(ws, ["4"], ["3"])),
        ("node 4 appends the leader's entries", lambda ws: joined_appends(ws, "4")),
    ],
}


def main():
    d = sys.argv[1]
    for run, checks in CHECKS.items():
        path = os.path.join(d, run + ".ndjson")
        if not os.path.exists(path):
            print(f"not ok - {run}: no window file {path}")
            continue
        ws = windows(path)
        for name, check in checks:
            if check(ws):
                print(f"ok - {run}: {name}")
            else:
                print(f"not ok - {run}: {name}: not in the windows")


main()
