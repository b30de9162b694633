#!/usr/bin/env python3
"""capture probe's events of tests/probe/mutex.probes against mutex's log.

usage: check-mutex.py EVENTS LOG

Each log line "WHO lock|unlock MUTEX" is one event, in order: LockChecked,
UnlockAdaptive, ... of WHO's thread (threads numbered as they first come,
main 1), with the lock word and owner glibc keeps at the call's entry,
which a model of glibc's lock word predicts: 0 and no owner when free; 1
and the holder once locked; 2 once a thread blocked on it (the log's lock
of a held mutex: the holder's unlock comes next); the woken waiter then
holds it with the word still 2 (glibc's lll_lock_wait takes it by
exchanging 2 in).  Exits 1 with the first difference.
"""
import json
import sys


def main():
    events = [json.loads(l) for l in open(sys.argv[1])]
    lines = [l.split() for l in open(sys.argv[2]) if l.strip()]
    index, word, owner, waiter = {}, {}, {}, {}
    if len(events) != len(lines):
        sys.exit("%d events for %d logged calls" % (len(events), len(lines)))
    for n, ((who, op, mutex), ev) in enumerate(zip(lines, events), 1):
        index.setdefault(who, len(index) + 1)
        held = word.get(mutex, 0)
        want = {"event": ("Lock" if op == "lock" else "Unlock") + mutex.capitalize(),
                "proc": 0, "thread": index[who], "lock": held,
                "owner": index[owner[mutex]] if held else 0}
        if ev != want:
            sys.exit("line %d (%s): event %s, expected %s" % (n, " ".join((who, op, mutex)),
                                                               json.dumps(ev), json.dumps(want)))
        if op == "lock" and held:
            word[mutex], waiter[mutex] = 2, who
        elif op == "lock":
            word[mutex], owner[mutex] = 1, who
        elif waiter.get(mutex):
            owner[mutex], waiter[mutex] = waiter[mutex], None
        else:
            word[mutex], owner[mutex] = 0, None
    waits = sum(1 for e in events if e["lock"] == 2 and e["event"].startswith("Unlock"))
    print("%d calls, %d threads, %d unlocks with a waiter" % (len(events), len(index), waits))


main()
