#!/usr/bin/env python3
"""capture go's events of tests/go/state.probes against the bank's log.

usage: check-state.py EVENTS LOG

Per process, the Pay events are the log's transfers in order, each with
`before` the amount its payer (the same account of the same process) paid
in its last transfer before, 0 if none, and `after` its own amount; each
Report carries the id of its process's last transfer.  Exits 1 with the
first difference.
"""
import json
import re
import sys

from inorder import same_events

PAY = re.compile(r"proc (\d+) transfer (\d+) from (\d+) to \d+ amount (\d+) ")
REPORT = re.compile(r"proc (\d+) report .* total (\d+)$")


def expected(log):
    want, paid, last = [], {}, {}
    for text in open(log):
        text = text.strip()
        if m := PAY.match(text):
            proc, tid, frm, amount = map(int, m.groups())
            want.append({"kind": "Pay", "proc": proc, "id": tid, "from": frm,
                         "amount": amount, "before": paid.get((proc, frm), 0),
                         "after": amount})
            paid[(proc, frm)] = amount
            last[proc] = tid
        elif m := REPORT.match(text):
            proc, total = map(int, m.groups())
            want.append({"kind": "Report", "proc": proc, "total": total,
                         "last": last[proc]})
    return want


def main():
    got = [json.loads(line) for line in open(sys.argv[1])]
    want = expected(sys.argv[2])
    same_events(got, want)
    kept = sum(1 for w in want if w.get("before"))
    print(f"{len(got)} events, {kept} with a kept payment")


main()
