#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The events of tests/jvm/ledger.probes against the ledger's own log.

    check-ledger.py LOG EVENTS

LOG is Ledger.java's stdout ("apply id=... balances=..." lines, then
"total N"), EVENTS the capture's events/java.ndjson.  Every operation must
show, in the log's order, as Apply, Decided and Applied events with the
values the log says (a string cut at the spec's bound as capture writes
one), the balances before it the ones the operation before left, and the
history the ledger kept; each worker on a thread of its own, numbered in
the order threads first recorded.  Exit 1 with the first difference.
"""
import json
import sys


def cut(s, bound):
    """A str field's value: the string, or its first bytes and its length."""
    b = s.encode()
    if len(b) <= bound:
        return s
    k = bound
    while k > 0 and (b[k] & 0xC0) == 0x80:
        k -= 1
    return {"first": b[:k].decode(), "len": len(b)}


def parse(line):
    words = dict(w.split("=", 1) for w in line.split()[1:])
    return words


def fail(msg):
    sys.exit("check-ledger: " + msg)


def main():
    log = [l.rstrip("\n") for l in open(sys.argv[1])]
    events = [json.loads(l) for l in open(sys.argv[2])]
    ops = [parse(l) for l in log if l.startswith("apply ")]
    total = [l for l in log if l.startswith("total ")]
    if len(events) != 3 * len(ops) + 1:
        fail(f"{len(events)} events for {len(ops)} operations (3 each and Total)")
    balances = [100, 100, 100, 100]
    history = [[0, 0, 0] for _ in range(4)]
    threads = {}
    for i, op in enumerate(ops):
        apply, decided, applied = events[3 * i: 3 * i + 3]
        id_, frm = int(op["id"]), int(op["from"])
        amount = int(op["amount"])
        fee = None if op["fee"] == "none" else int(op["fee"])
        thread = threads.setdefault(op["thread"], len(threads) + 1)
        want = {"event": "Apply", "proc": 0, "thread": thread, "id": id_, "kind": op["kind"],
                "from": frm, "to": int(op["to"]), "amount": amount, "fee": fee or 0,
                "nofee": fee is None, "memo": cut(op["memo"], 12), "before": balances}
        if apply != want:
            fail(f"operation {id_}: {apply} where {want} was due")
        owner = {"event": "Decided", "proc": 0, "id": id_, "fee": fee or 0,
                 "ok": op["ok"] == "true", "history": history[frm],
                 "owner": "Chloé Dupont", "age": -1, "nobody": None}
        if decided != owner:
            fail(f"operation {id_}: {decided} where {owner} was due")
        if op["ok"] == "true":
            history[frm] = list(history[frm])
            history[frm][id_ % 3] = amount
        balances = [int(b) for b in op["balances"].split(",")]
        strict = 0 if op["strict"] == "none" else int(op["strict"])
        want = {"event": "Applied", "proc": 0, "id": id_, "ops": int(op["ops"]),
                "logged": int(op["log"]), "named": int(op["names"]),
                "flags": int(op["flags0"]), "grade": int(op["grade0"]),
                "strict": strict, "after": balances,
                "frozen": False}
        if applied != want:
            fail(f"operation {id_}: {applied} where {want} was due")
    names = ["alice", "bob", "chloé", cut("dmitri-with-a-name-longer-than-thirty-two-bytes", 8)]
    want = {"event": "Total", "proc": 0, "accounts": 4, "first": balances[0], "name": names}
    if events[-1] != want or not total or not total[0].startswith(f"total {sum(balances)} "):
        fail(f"{events[-1]} where {want} was due")
    if sorted(threads.values()) != list(range(1, len(threads) + 1)) or len(threads) < 2:
        fail(f"threads {threads}: each worker a thread of its own")
    print(f"check-ledger: {len(ops)} operations, {len(threads)} threads")


main()
