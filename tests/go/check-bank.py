#!/usr/bin/env python3
"""Check capture go's events of the toy bank against the bank's own log.

usage: check-bank.py EVENTS LOG WORKERS

Per process, each Transfer event and the Applied event after it (apply
runs under the bank's mutex, so they alternate) must give the log line the
bank printed for that transfer, in the same order; the process index must
be the bank's -proc number (exec order), every Transfer must see the
balances the previous Applied left, and the transfers must come from
WORKERS goroutines.  The Report and Reported events at the end (a struct
argument on the stack, a slice in registers, a named result) must give
the bank's report line.  Prints what differs and exits 1.
"""
import collections
import json
import sys


def main():
    events_path, log_path, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    log = collections.defaultdict(list)
    with open(log_path) as f:
        for line in f:
            if line.startswith("proc "):
                log[int(line.split()[1])].append(line.rstrip("\n"))
    events = collections.defaultdict(list)
    with open(events_path) as f:
        for line in f:
            e = json.loads(line)
            events[e["proc"]].append(e)
    bad = []
    if sorted(log) != sorted(events):
        bad.append(f"processes: log {sorted(log)}, events {sorted(events)}")
    for proc, evs in sorted(events.items()):
        lines, goids, prev = [], set(), None
        if len(evs) >= 2 and evs[-2]["event"] == "Report":
            r, d = evs[-2], evs[-1]
            evs = evs[:-2]
            report = (f"proc {r['bank']} report applied {r['applied']} refused "
                      f"{r['refused']} first {r['first']} owners {r['owners']} "
                      f"name1 {r['name1']} total {d['total']}")
            if d["event"] != "Reported" or d["owners"] != r["owners"]:
                bad.append(f"proc {proc}: Report then {d}")
        else:
            report = None
            bad.append(f"proc {proc}: no Report and Reported at the end")
        for t, a in zip(evs[0::2], evs[1::2]):
            if t["event"] != "Transfer" or a["event"] != "Applied":
                bad.append(f"proc {proc}: {t['event']} then {a['event']}")
                break
            if t["bank"] != proc:
                bad.append(f"proc {proc}: a Transfer of bank {t['bank']}")
            if prev is not None and t["balances"] != prev:
                bad.append(f"proc {proc}: transfer {t['id']} sees {t['balances']}, "
                           f"the last one left {prev}")
            prev = a["balances"]
            goids.add(t["goid"])
            lines.append(
                f"proc {t['bank']} transfer {t['id']} from {t['from']} to {t['to']} "
                f"amount {t['amount']} fee {'none' if t['fee'] is None else t['fee']} ok {str(a['ok']).lower()} balances "
                f"{','.join(map(str, a['balances']))} applied {a['applied']}")
        if report:
            lines.append(report)
        if len(evs) % 2:
            bad.append(f"proc {proc}: {len(evs)} events, not pairs")
        if lines != log.get(proc):
            diff = [(x, y) for x, y in zip(lines, log.get(proc, [])) if x != y][:2]
            bad.append(f"proc {proc}: {len(lines)} transfers from events, "
                       f"{len(log.get(proc, []))} in the log; first differences {diff}")
        if len(goids) != workers:
            bad.append(f"proc {proc}: transfers from goroutines {sorted(goids)}, "
                       f"expected {workers} of them")
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
