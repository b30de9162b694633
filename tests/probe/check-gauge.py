#!/usr/bin/env python3
"""capture's events of a gauge spec against the gauge's log (C, Go, Rust).

usage: check-gauge.py EVENTS LOG [WORKERS OPS]

The gauges (tests/probe/gauge, tests/go/gauge, tests/probe/rust-gauge)
log one "apply KEY=VALUE ..." line per operation, in the order the
workers took their turns.  Each is an Apply event (its worker, op by
name, arg, and the level the line before left, 0 at first) and an
Applied event with every other key of the line: level, mode, epoch (the
packed word's fields), closed as a bool, "same" (the word read equals
the result) true, and what the gauge logged of its other variables; a
dotted key is a nested object.  A "thread" field, where there is one, is
each worker's own.  Other lines are ignored.  Exits 1 with the first
difference.
"""
import json
import re
import sys

OPS = ["raise", "lower", "cycle"]
APPLY = re.compile(r"apply ((?:\S+=\S+ ?)+)$")


def value(text):
    return text == "true" if text in ("true", "false") else int(text)


def nest(flat):
    out = {}
    for key, v in flat.items():
        *outer, last = key.split(".")
        d = out
        for k in outer:
            d = d.setdefault(k, {})
        d[last] = v
    return out


def expected(log):
    want, level = [], 0
    for line in log:
        m = APPLY.match(line.rstrip("\n"))
        if not m:
            continue
        kv = dict(pair.split("=", 1) for pair in m.group(1).split())
        kv = {k: value(v) for k, v in kv.items()}
        worker, op, arg = kv.pop("worker"), kv.pop("op"), kv.pop("arg")
        want.append(dict(event="Apply", proc=0, worker=worker, op=OPS[op], arg=arg,
                         level=level))
        kv["closed"] = bool(kv["closed"])
        applied = dict(event="Applied", proc=0, level=kv.pop("level"),
                       mode=kv.pop("mode"), epoch=kv.pop("epoch"),
                       closed=kv.pop("closed"), same=True)
        applied.update(nest(kv))
        want.append(applied)
        level = applied["level"]
    return want


def main():
    events = [json.loads(line) for line in open(sys.argv[1])]
    want = expected(open(sys.argv[2]))
    threads = {}
    for i, e in enumerate(events):
        if "thread" in e:
            t = e.pop("thread")
            worker = want[i - i % 2]["worker"] if i < len(want) else None
            if threads.setdefault(worker, t) != t:
                sys.exit(f"event {i + 1}: worker {worker} on thread {t}, "
                         f"not {threads[worker]}")
    if len(set(threads.values())) != len(threads):
        sys.exit(f"two workers share a thread: {threads}")
    for i, (got, w) in enumerate(zip(events, want)):
        if got != w:
            sys.exit(f"event {i + 1}: {json.dumps(got)}, the log says {json.dumps(w)}")
    if len(events) != len(want):
        sys.exit(f"{len(events)} events, the log says {len(want)}")
    print(f"{len(want) // 2} operations, {sum(w.get('closed', False) for w in want)} "
          f"closed")


main()
