#!/usr/bin/env python3
"""capture probe's events of tests/probe/till.probes against the till's log.

usage: check-till.py EVENTS LOG WORKERS OPS

The workers take turns under one Mutex, inside which the probed
Till::apply runs: the events come in the order of the log.  Each
"worker=" line is an Apply event (its worker, the operation's variant and
fields, every other variant's fields their "or" values, the memo, the
balances the line before left, 100 to 400 at first, the owners' ids: the
"owner" lines' accounts, 0 for None) and an Applied event (Some with the
new balance or None for "refused", the count applied so far, the worker
of the last one applied, the balances after, account 0 frozen or not and
its history of amounts, 4 accounts, account 2's name and its owner's
name); each worker's events come from one thread of its own.  Then a
Find event per "find=" line (Some with the balance and the history's
length, or None) and an Audit event per "audit" line (two
instantiations of one generic function).  Then per "review" line a
Review event (the round, account and cents; the rule's field as a Cap's
max or a Quiet's account, the other "or" value; the policy's alike), a
Reviewed event (allowed or not, the queue's, tally's and marks' lengths,
the Cap's max again), a Settle event (the batch's latest and oldest
amounts, of the last 8 rounds, and its memo "rN" of round N + 1) and a
Settled event (the amount before the latest, the sum logged).  Exits 1
with the first difference.
"""
import json
import re
import sys

OWNER = re.compile(r"owner account=(\d) id=(\d+) name=(\w+)$")
OP = re.compile(r"worker=(\d+) op=(\d+) (\w+)(?: \{ (.*) \}|\((\d+)\))? memo=(\S+) "
                r"result=(\w+) balances=(\d+),(\d+),(\d+),(\d+)$")
FIND = re.compile(r"find=(\w+) balance=(\w+)$")
AUDIT = re.compile(r"audit (till|account)=(\d+) round=(\d+)$")
REVIEW = re.compile(r"review round=(\d+) account=(\d) cents=(\d+) rule=(\w+)\((\d+)\) "
                    r"policy=(\w+)\((\d+)\) allowed=(true|false) queue=(\d+) tally=(\d+) "
                    r"marks=(\d+) settled=(\d+)$")
NOT_THERE = {"dep": {"account": 9, "cents": 0}, "wd": {"account": 9, "cents": 0},
             "tr": {"from": 9, "to": 9, "cents": 0}, "freeze": 9}
SHORT = {"Deposit": "dep", "Withdraw": "wd", "Transfer": "tr"}


def balances(prefix, values):
    return {prefix: {f"a{i}": v for i, v in enumerate(values)}}


def history(amounts):
    """A [:3] field: the elements, or the first 3 and the length."""
    return list(amounts) if len(amounts) <= 3 else {"first": amounts[:3], "len": len(amounts)}


class Till:
    def __init__(self):
        self.before = [100, 200, 300, 400]
        self.owners = {}
        self.applied, self.last, self.frozen0 = 0, 9, False
        self.history = [[] for _ in range(4)]
        self.amounts = [0] * 8    # the amounts reviewed, the latest first
        self.want = []

    def op(self, m):
        w, _i, kind, fields, freeze, memo, result = m.groups()[:7]
        after = [int(x) for x in m.groups()[7:]]
        ev = {"event": "Apply", "proc": 0, "thread": None, "worker": int(w),
              "kind": kind, **json.loads(json.dumps(NOT_THERE))}
        if kind == "Freeze":
            ev["freeze"] = int(freeze)
        else:
            ev[SHORT[kind]] = {k: int(v) for k, v in
                               (f.split(": ") for f in fields.split(", "))}
        ev["memo"] = memo
        ev.update(balances("before", self.before))
        ev["owner0"], ev["owner1"] = self.owners.get(0, (0,))[0], self.owners.get(1, (0,))[0]
        self.want.append(ev)
        for a in range(4):
            if after[a] != self.before[a]:
                self.history[a].append(after[a] - self.before[a])
        if kind == "Freeze" and int(freeze) == 0:
            self.frozen0 = True
        if result != "refused":
            self.applied += 1
            self.last = int(w)
        self.want.append({"event": "Applied", "proc": 0, "thread": None,
                          "result": "None" if result == "refused" else "Some",
                          "balance": 0 if result == "refused" else int(result),
                          "applied": self.applied, "last": self.last,
                          **balances("after", after), "frozen0": self.frozen0,
                          "history0": history(self.history[0]), "accounts": 4,
                          "name2": "carol", "owner2": self.owners.get(2, (0, ""))[1]})
        self.before = after

    def review(self, m):
        rnd, account, cents = int(m[1]), int(m[2]), int(m[3])
        rule, policy = (m[4], int(m[5])), (m[6], int(m[7]))
        cap = rule[1] if rule[0] == "cap" else 0
        self.amounts = [cents] + self.amounts[:7]
        self.want += [
            {"event": "Review", "proc": 0, "round": rnd, "account": account, "cents": cents,
             "cap": cap, "quiet": rule[1] if rule[0] == "quiet" else 9,
             "policy": policy[1] if policy[0] == "cap" else 0,
             "pquiet": policy[1] if policy[0] == "quiet" else 9},
            {"event": "Reviewed", "proc": 0, "allowed": m[8] == "true", "queue": int(m[9]),
             "tally": int(m[10]), "marks": int(m[11]), "cap": cap},
            {"event": "Settle", "proc": 0, "latest": self.amounts[0], "oldest": self.amounts[7],
             "memo": f"r{rnd - 1}"},
            {"event": "Settled", "proc": 0, "previous": self.amounts[1], "sum": int(m[12])}]


def expected(log):
    """The events the log says, with None for each event's thread."""
    t = Till()
    names = ["alice", "bob", "carol", "dave"]
    for line in log:
        line = line.rstrip("\n")
        if m := OWNER.match(line):
            t.owners[int(m[1])] = (int(m[2]), m[3])
        elif m := OP.match(line):
            t.op(m)
        elif m := FIND.match(line):
            some = m[2] != "none"
            n = len(t.history[names.index(m[1])]) if some else 0
            t.want.append({"event": "Find", "proc": 0, "name": m[1],
                           "found": "Some" if some else "None",
                           "balance": int(m[2]) if some else 0, "history": n})
        elif m := AUDIT.match(line):
            t.want.append({"event": "Audit", "proc": 0,
                           "round": int(m[3]), "cents": int(m[2])})
        elif m := REVIEW.match(line):
            t.review(m)
        else:
            sys.exit(f"log: unexpected line {line!r}")
    return t.want


def main():
    events_path, log_path, workers, ops = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(events_path) as f:
        got = [json.loads(line) for line in f]
    with open(log_path) as f:
        want = expected(f)
    reviews = sum(w["event"] == "Review" for w in want)
    if not reviews or len(want) != 2 * workers * ops + 4 + 4 * reviews:
        sys.exit(f"log: {len(want)} events, not {2 * workers * ops + 4} and 4 per review")
    if len(got) != len(want):
        sys.exit(f"{len(got)} events, the log says {len(want)}")
    threads = {}
    for n, (g, w) in enumerate(zip(got, want), 1):
        if w.get("thread", 0) is None:
            worker = w["worker"] if w["event"] == "Apply" else want[n - 2]["worker"]
            if threads.setdefault(worker, g.get("thread")) != g.get("thread"):
                sys.exit(f"event {n}: worker {worker} on thread {g.get('thread')}, "
                         f"before on {threads[worker]}")
            w["thread"] = g.get("thread")
        if g != w:
            sys.exit(f"event {n}: got {json.dumps(g)}\n  the log says {json.dumps(w)}")
    if len(set(threads.values())) != workers:
        sys.exit(f"workers on threads {threads}: not one each")
    print(f"{len(got)} events as logged")


main()
