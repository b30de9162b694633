#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a small raftkvs run in PGo's recorder format, for the paths the
shared runs (one server, one client) never take.

    gen-run.py DIR handlers|two-leaders

handlers: server 1 (of 1) handles a RequestVote of term 2 from server 2 and
grants it, then an AppendEntries of term 2 with one entry and leader commit
1, then an AppendEntries response of term 3 (it steps down to a follower of
term 3).  two-leaders: servers 1 and 2 (of 2) both time out into term 2 and
become its leader (each BecomeLeader after its own timeout).
Each process's clock ticks once per record; one process per file, so no
clock names another.
"""
import json
import os
import sys

ENTRY = ('(("term") :> (2) @@ ("cmd") :> ((("idx") :> (1) @@ ("type") :> ("put") '
         '@@ ("key") :> ("k") @@ ("value") :> ("v"))) @@ ("client") :> (7))')


def msg(**fields):
    return "(" + " @@ ".join(f'("{k}") :> ({v})' for k, v in fields.items()) + ")"


def el(tag, name, value, old=None, index=None, prefix="AServer", self="1"):
    e = {"indices": [index] if index else [],
         "name": {"name": name, "prefix": prefix if name != ".pc" else "", "self": self},
         "tag": tag, "value": value}
    if old is not None:
        e["oldValue"] = old
    return e


def pc(frm, to, prefix="AServer", self="1"):
    return el("write", ".pc", f'"{to}"', f'"{frm}"', prefix=prefix, self=self)


class Proc:
    def __init__(self, archetype, self_):
        self.archetype, self.self, self.n, self.lines = archetype, self_, 0, []

    def step(self, elements, after=()):
        """after: (archetype, self, n) of steps this one happens after."""
        self.n += 1
        self.lines.append(json.dumps({
            "archetypeName": self.archetype,
            "clock": [[[a, s], n] for a, s, n in after] + [[[self.archetype, self.self], self.n]],
            "csElements": elements, "endTime": "t", "isAbort": False,
            "self": self.self, "startTime": "t"}, separators=(",", ":")))

    def write(self, d):
        with open(os.path.join(d, f"trace-{self.self}-1.log"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def handle(p, m, body):
    """serverLoop receives m; handleMsg does body."""
    p.step([el("read", "net", m, index="1"), el("write", "m", m, "defaultInitValue"),
            pc("AServer.serverLoop", "AServer.handleMsg")])
    p.step([el("read", "m", m)] + body + [pc("AServer.handleMsg", "AServer.serverLoop")])


def handlers(d):
    p = Proc("AServer", "1")
    rvq = msg(mtype='"rvq"', mterm=2, mlastLogTerm=0, mlastLogIndex=0, msource=2, mdest=1)
    handle(p, rvq, [
        el("read", "currentTerm", "1", index="1"),
        el("write", "currentTerm", "2", "1", index="1"),
        el("write", "state", '"follower"', '"follower"', index="1"),
        el("write", "votedFor", "0", "0", index="1"),
        el("read", "log", "<<>>", index="1"),
        el("read", "votedFor", "0", index="1"),
        el("write", "votedFor", "2", "0", index="1"),
        el("write", "net", msg(mtype='"rvp"', mterm=2, mvoteGranted="TRUE",
                               msource=1, mdest=2), index="2")])
    apq = msg(mtype='"apq"', mterm=2, mprevLogIndex=0, mprevLogTerm=0,
              mentries=f"<<{ENTRY}>>", mcommitIndex=1, msource=2, mdest=1)
    handle(p, apq, [
        el("read", "currentTerm", "2", index="1"),
        el("read", "state", '"follower"', index="1"),
        el("read", "log", "<<>>", index="1"),
        el("write", "log", "<<>>", "<<>>", index="1"),
        el("write", "log", f"<<{ENTRY}>>", "<<>>", index="1"),
        el("read", "commitIndex", "0", index="1"),
        el("write", "commitIndex", "1", "0", index="1")])
    app = msg(mtype='"app"', mterm=3, msuccess="FALSE", mmatchIndex=0, msource=2, mdest=1)
    handle(p, app, [
        el("read", "currentTerm", "2", index="1"),
        el("write", "currentTerm", "3", "2", index="1"),
        el("write", "state", '"follower"', '"follower"', index="1"),
        el("write", "votedFor", "0", "2", index="1")])
    p.write(d)


def two_leaders(d):
    for i in ("1", "2"):
        s = Proc("AServer", i)
        s.step([el("read", "net", "TRUE", index=i, self=i),
                pc("AServer.serverLoop", "AServer.serverLoop", self=i)])
        s.write(d)
        v = Proc("AServerRequestVote", str(2 + int(i)))
        pre = "AServerRequestVote"
        v.step([el("read", "srvId", i, prefix=pre, self=v.self),
                el("write", "state", '"candidate"', '"follower"', index=i, prefix=pre, self=v.self),
                el("write", "currentTerm", "2", "1", index=i, prefix=pre, self=v.self),
                el("write", "votedFor", i, "0", index=i, prefix=pre, self=v.self),
                pc(f"{pre}.serverRequestVoteLoop", f"{pre}.requestVoteLoop",
                   prefix=pre, self=v.self)])
        v.write(d)
        b = Proc("AServerBecomeLeader", str(8 + int(i)))
        pre = "AServerBecomeLeader"
        b.step([el("read", "srvId", i, prefix=pre, self=b.self),
                el("write", "state", '"leader"', '"candidate"', index=i, prefix=pre, self=b.self),
                pc(f"{pre}.serverBecomeLeaderLoop", f"{pre}.serverBecomeLeaderLoop",
                   prefix=pre, self=b.self)], after=[(v.archetype, v.self, 1)])
        b.write(d)


if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    {"handlers": handlers, "two-leaders": two_leaders}[sys.argv[2]](sys.argv[1])
