#!/usr/bin/env python3
"""What must hold in any run of capture etcd --live, checked from the raw
event stream alone (independently of the C checks it repeats):

- every Receive* event matches an earlier Send* of the same message, from
  msg.from to msg.to (a receive consumes one send);
- at most one node is leader in a term;
- on a node, the term never decreases, nor the commit index except at a
  restart (InitState: newRaft starts from the storage's snapshot);
- the leader stopped half-way restarted: one node has two InitState events,
  and a second leader, of a higher term, was elected.

Prints one line per violation and exits 1, else prints the counts."""
import collections
import json
import sys


def main(path):
    pending = collections.Counter()
    leaders = {}
    last = {}
    inits = collections.Counter()
    errors = []
    sent = received = 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            ev = json.loads(line)
            name, nid, st = ev["name"], ev["nid"], ev["state"]
            msg = ev.get("msg")
            if name.startswith("Send"):
                pending[json.dumps(msg, sort_keys=True)] += 1
                sent += 1
                if msg["from"] != nid:
                    errors.append(f"{n}: {nid} sends as {msg['from']}")
            elif name.startswith("Receive"):
                key = json.dumps(msg, sort_keys=True)
                if pending[key] <= 0 or msg["to"] != nid:
                    errors.append(f"{n}: {nid} receives {msg['type']} never sent to it")
                pending[key] -= 1
                received += 1
            if name == "InitState":
                inits[nid] += 1
                last.pop(nid, None)
            if ev["role"] == "StateLeader":
                if leaders.setdefault(st["term"], nid) != nid:
                    errors.append(f"{n}: {nid} and {leaders[st['term']]} lead term {st['term']}")
            if nid in last and (st["term"] < last[nid]["term"] or
                                st["commit"] < last[nid]["commit"]):
                errors.append(f"{n}: {nid} goes back: {last[nid]} -> {st}")
            if name != "InitState":
                last[nid] = st
    if sorted(inits.values()) != [1, 1, 2]:
        errors.append(f"InitState per node {dict(inits)}: expected one restart")
    if len(leaders) < 2:
        errors.append(f"leaders by term {leaders}: expected a leader change")
    for e in errors[:10]:
        print(e)
    if errors:
        return 1
    print(f"{sent} sent, {received} received, leaders by term {sorted(leaders)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
