#!/usr/bin/env python3
"""capture go's events of tests/go/calc.probes against the bank's log.

usage: check-calc.py EVENTS LOG

Every transfer is one event named by its amount's band (Small below 20,
Medium to 39, Large above), with each computed field as Python computes
it from the log's from, to, amount and fee (to - from signed: back, step,
quot, rem, halved), bits and shifts in 64 bits, division truncated toward
zero as Go's, a computed u8 the low byte.
Exits 1 with the first difference.
"""
import json
import re
import sys

LINE = re.compile(r"proc (\d+) transfer (\d+) from (\d+) to (\d+) amount (\d+) "
                  r"fee (\S+) ")


def i64(v):
    """@v modulo 2^64, as a signed 64-bit number."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def quo(a, b):
    """Go's a / b: truncated toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def event(proc, tid, frm, to, amount, fee):
    packed = frm << 16 | to << 8 | amount & 0xff
    size = ["Small", "Medium", "Large"][(amount >= 20) + (amount > 39)]
    return {"kind": size, "size": size,
            "proc": proc, "id": tid, "from": frm, "to": to, "amount": amount,
            "big": amount > 50, "charged": fee >= 1, "self": frm == to,
            "moved": frm != to, "low": min(frm, to), "high": max(frm, to),
            "back": to - frm < 0, "step": max(to - frm, -2),
            "capped": min(amount, 40), "net": amount - fee,
            "half": quo(amount, 2), "quot": quo(to - frm, 2),
            "rem": (to - frm) - 3 * quo(to - frm, 3),
            "pfrom": packed >> 16 & 0xff, "pto": packed >> 8 & 0xff,
            "pamount": packed & 0xff, "flip": ~amount & 0xff,
            "odd": (amount & 1) == 1, "mixed": amount ^ fee,
            "either": amount | fee * 2, "halved": (to - frm) >> 1,
            "wrap": i64(amount << 62) >> 62,
            "scaled": quo(amount * 1000, 7) % 100}


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
