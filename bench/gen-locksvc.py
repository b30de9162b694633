#!/usr/bin/env python3
"""Write a valid PGo locksvc run of about SIZE_MB megabytes to DIR.

Usage: gen-locksvc.py DIR SIZE_MB [CLIENTS]

Records have the shape of PGo's recorder (reference/pgo-traces/locksvc):
one file per archetype instance, vector clocks that really are consistent
(every receive merges the sender's clock), an aborted section now and then.
Clients take turns: request, server receives and grants, critical section,
unlock, server receives the unlock; so every round is causally ordered.
"""
import os
import sys

out, size_mb = sys.argv[1], float(sys.argv[2])
nclients = int(sys.argv[3]) if len(sys.argv) > 3 else 5
os.makedirs(out, exist_ok=True)
procs = [("AServer", "0")] + [("AClient", str(c)) for c in range(1, nclients + 1)]
files = {p: open(os.path.join(out, "trace-%s-%d.log" % (p[1], 1000 + i)), "w")
         for i, p in enumerate(procs)}
clock = {p: {} for p in procs}      # each process's vector clock
T = '"2025-03-09T10:23:08.801463555Z"'


def pc(arch, me, old, new):
    return ('{"indices":[],"name":{"name":".pc","prefix":"","self":"%s"},"tag":"read","value":"\\"%s.%s\\""}' % (me, arch, old),
            '{"indices":[],"name":{"name":".pc","prefix":"","self":"%s"},"oldValue":"\\"%s.%s\\"","tag":"write","value":"\\"%s.%s\\""}' % (me, arch, old, arch, new))


def el(tag, var, me, idx, value, old=None):
    o = ',"oldValue":"%s"' % old if old is not None else ""
    return ('{"indices":[%s],"name":{"name":"%s","prefix":"%s","self":"%s"}%s,"tag":"%s","value":"%s"}'
            % ('"%s"' % idx if idx is not None else "", var, "AServer" if me == "0" else "AClient", me, o, tag, value))


def step(p, elements, abort=False, recv_from=None):
    c = clock[p]
    if recv_from:
        for k, v in clock[recv_from].items():
            c[k] = max(c.get(k, 0), v)
    c[p] = c.get(p, 0) + 1
    ck = ",".join('[["%s","%s"],%d]' % (k[0], k[1], v) for k, v in c.items())
    line = ('{"archetypeName":"%s","clock":[%s],"csElements":[%s],"endTime":%s,"isAbort":%s,"self":"%s","startTime":%s}\n'
            % (p[0], ck, ",".join(elements), T, "true" if abort else "false", p[1], T))
    files[p].write(line)
    return len(line)


server = procs[0]
lock = '((\\"from\\") :\\u003e (%s) @@ (\\"type\\") :\\u003e (%d))'
written, limit, n = 0, size_mb * 1e6, 0
while written < limit:
    for me in range(1, nclients + 1):
        cl = procs[me]
        c = str(me)
        if n % 7 == 0:
            written += step(cl, [pc("AClient", c, "acquireLock", "x")[0]], abort=True)
        r, w = pc("AClient", c, "acquireLock", "criticalSection")
        written += step(cl, [r, el("write", "network", c, "0", lock % (c, 1)), w])
        for msg, grant in ((1, True), (2, False)):
            written += step(server, pc("AServer", "0", "serverLoop", "serverReceive"))
            r, w = pc("AServer", "0", "serverReceive", "serverRespond")
            written += step(server, [r, el("read", "network", "0", "0", lock % (c, msg)), w], recv_from=cl)
            r, w = pc("AServer", "0", "serverRespond", "serverLoop")
            body = [r, el("write", "network", "0", c, "3")] if grant else [r]
            written += step(server, body + [w])
            if grant:
                r, w = pc("AClient", c, "criticalSection", "unlock")
                written += step(cl, [r, el("read", "network", c, c, "3"), el("write", "hasLock", c, c, "TRUE"), w], recv_from=server)
                r, w = pc("AClient", c, "unlock", "acquireLock")
                written += step(cl, [r, el("write", "hasLock", c, c, "FALSE"), el("write", "network", c, "0", lock % (c, 2)), w])
        n += 1
for f in files.values():
    f.close()
