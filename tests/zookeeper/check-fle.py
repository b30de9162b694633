#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What must hold in any run of ZooKeeper's election, checked on the raw
events of scenarios/zookeeper/fle.probes apart from capture's folder.

    check-fle.py EVENTS

Every notification received was sent before by its sender to its
receiver, unchanged (a send received more than once only as QuorumCnxManager
sends its last message again on a new connection); a process's logical clock never goes back; at
most one leader takes an epoch, and every follower that takes it follows
that leader; a server leaves an election LEADING exactly when its vote
is for itself.  Prints a summary; exit 1 with the first violation.
"""
import json
import sys


def fail(n, msg):
    sys.exit(f"check-fle: line {n}: {msg}")


def note(e):
    return (e["from"], e["to"], e["state"], e["leader"], e["zxid"], e["round"], e["epoch"])


def main():
    sent = {}
    clock = {}
    leader = {}
    counts = {"sent": 0, "received": 0, "again": 0, "elections": 0, "leaders": 0}
    for n, line in enumerate(open(sys.argv[1]), 1):
        e = json.loads(line)
        kind = e["event"]
        if "clock" in e:
            if e["clock"] < clock.get(e["proc"], e["clock"]):
                fail(n, f"process {e['proc']}'s clock goes back to {e['clock']}")
            clock[e["proc"]] = e["clock"]
        if kind == "Send":
            sent[note(e)] = sent.get(note(e), 0) + 1
            counts["sent"] += 1
        elif kind == "Receive":
            if note(e) not in sent:
                fail(n, f"a notification received never sent: {note(e)}")
            if sent[note(e)]:
                sent[note(e)] -= 1
                counts["received"] += 1
            else:
                counts["again"] += 1
        elif kind == "Epoch":
            want = leader.setdefault(e["epoch"], e["leader"])
            if want != e["leader"] or (e["state"] == "LEADING") != (e["leader"] == e["sid"]):
                fail(n, f"epoch {e['epoch']}: server {e['sid']} {e['state']} with "
                        f"{e['leader']}, its leader is {want}")
        elif kind == "Leave":
            counts["elections"] += 1
            counts["leaders"] += e["state"] == "LEADING"
            if (e["state"] == "LEADING") != (e["vote"]["leader"] == e["sid"]):
                fail(n, f"server {e['sid']} leaves {e['state']} voting {e['vote']['leader']}")
    print("check-fle: %(sent)d sent, %(received)d received (%(again)d again), %(elections)d servers left "
          "an election, %(leaders)d as leader" % counts + f", epochs {sorted(leader)}")


main()
