#!/usr/bin/env python3
"""capture probe's events of tests/probe/ledger.probes against the ledger's log.

usage: check-ledger.py EVENTS LOG WORKERS OPS

The workers apply operations under one mutex, which the probed
ledger_apply runs inside: the events come in the order of the log.  Each
"apply" line is an Apply event (its worker, id, kind by name, accounts,
amount, first memo byte, second tag, payer's id or 0, and the balances the
line before left, 100 each at first) and an Applied event (its outcome,
applied count, the balances after, the same thread as its Apply); each
worker's events come from one thread of its own.  Then a Peek event per
"peek" line and a Totals event for the "totals" line (with two accounts'
bit-fields, a signed one negative).  Exits 1 with the
first difference.
"""
import json
import re
import sys

KINDS = ["deposit", "withdraw", "transfer"]
APPLY = re.compile(r"apply worker=(\d+) id=(\d+) kind=(\d) from=(\d) to=(\d) "
                   r"amount=(\d+) memo=(\d+) tag=(\d+) payer=(\d+) ok=(\d) "
                   r"applied=(\d+) balances=(\d+),(\d+),(\d+),(\d+)$")
PEEK = re.compile(r"peek account=(\d) balance=(\d+) applied=(\d+)$")
TOTALS = re.compile(r"totals sum=(\d+) applied=(\d+) refused=(\d+) transfers=(\d+) "
                    r"flags=(\d),(\d),(-?\d+) flags3=(\d),(\d),(-?\d+)$")


def balances(prefix, values):
    return {prefix: {f"a{i}": v for i, v in enumerate(values)}}


def expected(log):
    """The events the log says, with None for each event's thread."""
    want, before = [], [100] * 4
    for line in log:
        line = line.rstrip("\n")
        if m := APPLY.match(line):
            n = [int(x) for x in m.groups()]
            after = n[11:15]
            want.append(dict(event="Apply", proc=0, thread=None, worker=n[0], id=n[1],
                             kind=KINDS[n[2]], **{"from": n[3]}, to=n[4], amount=n[5],
                             memo=n[6], tag=n[7], payer=n[8], **balances("before", before)))
            want.append(dict(event="Applied", proc=0, thread=None, ok=n[9], applied=n[10],
                             **balances("after", after)))
            before = after
        elif m := PEEK.match(line):
            a, b, c = (int(x) for x in m.groups())
            want.append(dict(event="Peek", proc=0, account=a, balance=b, applied=c))
        elif m := TOTALS.match(line):
            n = [int(x) for x in m.groups()]
            flags = {f"a{k}": dict(frozen=n[j], level=n[j + 1], delta=n[j + 2])
                     for k, j in ((1, 4), (3, 7))}
            want.append(dict(event="Totals", proc=0, sum=n[0], applied=n[1], refused=n[2],
                             transfers=n[3], **flags))
        else:
            sys.exit(f"log: an unexpected line: {line}")
    return want


def main():
    events = [json.loads(x) for x in open(sys.argv[1])]
    want = expected(open(sys.argv[2]))
    workers, ops = int(sys.argv[3]), int(sys.argv[4])
    applies = sum(1 for w in want if w["event"] == "Apply")
    if applies != workers * ops:
        sys.exit(f"log: {applies} operations, not {workers} x {ops}")
    if len(events) != len(want):
        sys.exit(f"{len(events)} events, the log says {len(want)}")
    thread_of, worker = {}, None
    for i, (got, exp) in enumerate(zip(events, want)):
        if "thread" in exp:
            if exp["event"] == "Apply":
                worker = exp["worker"]
            t = thread_of.setdefault(worker, got.get("thread"))
            if got.get("thread") != t:
                sys.exit(f"event {i + 1}: worker {worker} on thread {got.get('thread')}, "
                         f"before on {t}")
            exp["thread"] = t
        if got != exp:
            sys.exit(f"event {i + 1}: {json.dumps(got)}\n  the log says {json.dumps(exp)}")
    if len(set(thread_of.values())) != workers or None in thread_of.values():
        sys.exit(f"threads of the workers: {thread_of}, not {workers} distinct")
    print(f"{len(events)} events as logged, {workers} workers on {workers} threads")


main()
