#!/usr/bin/env python3
"""capture go's events of tests/go/calc.probes against the bank's log.

usage: check-calc.py EVENTS LOG

Every transfer is one event named by its amount's band (Small below 20,
Medium to 39, Large above), with each computed field as Python computes
it from the log's from, to, amount and fee (to - from signed: back, step).
Exits 1 with the first difference.
"""
import json
import re
import sys

LINE = re.compile(r"proc (\d+) transfer (\d+) from (\d+) to (\d+) amount (\d+) "
                  r"fee (\S+) ")


def event(proc, tid, frm, to, amount, fee):
    return {"kind": ["Small", "Medium", "Large"][(amount >= 20) + (amount > 39)],
            "proc": proc, "id": tid, "from": frm, "to": to, "amount": amount,
            "big": amount > 50, "charged": fee >= 1, "self": frm == to,
            "moved": frm != to, "low": min(frm, to), "high": max(frm, to),
            "back": to - frm < 0, "step": max(to - frm, -2),
            "capped": min(amount, 40), "net": amount - fee}


def main():
    got = sorted(json.dumps(json.loads(line), sort_keys=True) for line in open(sys.argv[1]))
    want = []
    for text in open(sys.argv[2]):
        if m := LINE.match(text):
            *nums, fee = m.groups()
            want.append(event(*map(int, nums), 0 if fee == "none" else int(fee)))
    want = sorted(json.dumps(w, sort_keys=True) for w in want)
    if got != want:
        diff = sorted(set(got) ^ set(want))
        sys.exit(f"events differ from the log: {diff[:2]}")
    print(f"{len(got)} transfers")


main()
