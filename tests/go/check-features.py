#!/usr/bin/env python3
"""capture go's events of tests/go/features.probes against the bank's log.

usage: check-features.py EVENTS LOG

Every applied transfer is one InWorker event (inside its worker's call, on
the worker's goroutine) with the log's id, amount, amount less the fee, the
process as a string and whether a fee was charged; FirstInWorker is the
first of each worker's transfers; InRun never happens (run's goroutine
makes no transfer); Untouched comes once for each account still at 100
before the transfer.  Exits 1 with the first difference.
"""
import collections
import json
import re
import sys

LINE = re.compile(r"proc (\d+) transfer (\d+) from \d+ to \d+ amount (\d+) "
                  r"fee (\S+) ok \S+ balances (\S+) applied \d+$")


def expected(log):
    want, untouched, first = [], 0, set()
    before = collections.defaultdict(lambda: None)
    for text in open(log):
        m = LINE.match(text.strip())
        if not m:
            continue
        proc, tid, amount, fee, bal = m.groups()
        proc, tid, amount = int(proc), int(tid), int(amount)
        fee = 0 if fee == "none" else int(fee)
        prev = before[proc] or [100] * len(bal.split(","))
        untouched += sum(1 for b in prev if b == 100)
        before[proc] = [int(b) for b in bal.split(",")]
        first.add((proc, tid // 1000))
        want.append({"kind": "InWorker", "proc": proc,
                     "t": {"id": tid, "amount": amount, "net": amount - fee,
                           "bank": str(proc)},
                     "charged": 1 if fee else 0})
    return want, untouched, len(first)


def main():
    events = [json.loads(line) for line in open(sys.argv[1])]
    want, untouched, workers = expected(sys.argv[2])
    kinds = collections.Counter(e["kind"] for e in events)
    got = [e for e in events if e["kind"] == "InWorker"]
    key = lambda e: json.dumps(e, sort_keys=True)
    if sorted(map(key, got)) != sorted(map(key, want)):
        diff = set(map(key, got)) ^ set(map(key, want))
        sys.exit(f"InWorker events differ from the log: {sorted(diff)[:2]}")
    if kinds["FirstInWorker"] != workers or kinds["InRun"] or kinds["Untouched"] != untouched:
        sys.exit(f"counts {dict(kinds)}: want FirstInWorker {workers}, no InRun, "
                 f"Untouched {untouched}")
    print(f"{len(got)} transfers, {workers} workers, {untouched} untouched")


main()
