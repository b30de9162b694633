#!/usr/bin/env python3
"""What must hold in any run of capture etcd --live, checked from the raw
event stream alone (independently of the C checks it repeats):

- every Receive* event matches an earlier Send* of the same message, from
  msg.from to msg.to (a receive consumes one send);
- at most one node is leader in a term;
- on a node, the term never decreases, nor the commit index except at a
  restart (InitState: newRaft starts from the storage's snapshot);
- the leader stopped half-way restarted: one node has two InitState events,
  and a second leader, of a higher term, was elected;
- the clients went on while it was down: other nodes replicated proposals
  between its last event and its restart.

With --crashes N (a --nemesis run) the last two are instead: N restarts
in all, as many as the nemesis crashed members.  With --any (a stream of
the scenario harness, no workload) there are no last two.

Prints one line per violation and exits 1, else prints the counts."""
import collections
import json
import sys


def main(path, crashes=None):
    pending = collections.Counter()
    leaders = {}
    last = {}
    inits = collections.Counter()
    seen = {}      # node -> line of its latest event
    down = None    # (node, last line before the crash, line of its restart)
    replicates = []  # (line, node) of every Replicate
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
            if name == "Replicate":
                replicates.append((n, nid))
            if name == "InitState":
                inits[nid] += 1
                if nid in seen:
                    down = (nid, seen[nid], n)
                last.pop(nid, None)
            if ev["role"] == "StateLeader":
                if leaders.setdefault(st["term"], nid) != nid:
                    errors.append(f"{n}: {nid} and {leaders[st['term']]} lead term {st['term']}")
            if nid in last and (st["term"] < last[nid]["term"] or
                                st["commit"] < last[nid]["commit"]):
                errors.append(f"{n}: {nid} goes back: {last[nid]} -> {st}")
            if name != "InitState":
                last[nid] = st
            seen[nid] = n
    if crashes == "any":
        for e in errors[:10]:
            print(e)
        print(f"{sent} sent, {received} received, leaders by term {sorted(leaders)}")
        return 1 if errors else 0
    if crashes is not None:
        restarts = sum(inits.values()) - len(inits)
        for e in errors[:10]:
            print(e)
        if restarts != crashes:
            print(f"InitState per node {dict(inits)}: expected {crashes} restarts")
            return 1
        if errors:
            return 1
        print(f"{sent} sent, {received} received, leaders by term {sorted(leaders)}, "
              f"{restarts} restarts")
        return 0
    if sorted(inits.values()) != [1, 1, 2]:
        errors.append(f"InitState per node {dict(inits)}: expected one restart")
    under_load = down and sum(1 for at, nid in replicates
                              if down[1] < at < down[2] and nid != down[0])
    if not under_load:
        errors.append(f"no proposal while the stopped node was down {down}")
    if len(leaders) < 2:
        errors.append(f"leaders by term {leaders}: expected a leader change")
    for e in errors[:10]:
        print(e)
    if errors:
        return 1
    print(f"{sent} sent, {received} received, leaders by term {sorted(leaders)}, "
          f"{under_load} proposals while node {down[0]} was down")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--crashes":
        sys.exit(main(sys.argv[3], int(sys.argv[2])))
    if len(sys.argv) == 3 and sys.argv[1] == "--any":
        sys.exit(main(sys.argv[2], "any"))
    sys.exit(main(sys.argv[1]))
