#!/usr/bin/env python3
"""capture's events of a gauge spec against the gauge's log (C, Go, Rust).

usage: check-gauge.py EVENTS LOG [WORKERS OPS]

The gauges (tests/probe/gauge, tests/go/gauge, tests/probe/rust-gauge)
log one "apply KEY=VALUE ..." line per operation, in the order the
workers took their turns (and the Rust one a "pause worker=W" line,
a Paused event, after each).  Each is an Apply event (its worker, op by
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
LINE = re.compile(r"(apply|pause) ((?:\S+=\S+ ?)+)$")


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
        m = LINE.match(line.rstrip("\n"))
        if not m:
            continue
        kv = dict(pair.split("=", 1) for pair in m.group(2).split())
        kv = {k: value(v) for k, v in kv.items()}
        if m.group(1) == "pause":
            want.append(dict(event="Paused", proc=0, **kv))
            continue
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
    threads, worker = {}, None
    for i, e in enumerate(events):
        if i < len(want) and want[i]["event"] == "Apply":
            worker = want[i]["worker"]
        if "thread" in e:
            t = e.pop("thread")
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
    print(f"{sum(w['event'] == 'Apply' for w in want)} operations, "
          f"{sum(w.get('closed', False) for w in want)} closed, "
          f"{sum(w['event'] == 'Paused' for w in want)} pauses")


main()
