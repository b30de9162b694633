"""locksvc-task-checks.py TASK LOCKSVC: the locksvc-task corpus TASK
against the locksvc corpus LOCKSVC (event form) of the same recordings:
every target action has windows (no harness gap); each window changes
only what its step owns (a client step its own hasLock and pc, a server
step q, by one append or by dropping its head, granting when a client
newly heads it: every step that changes one is a window of its own); without the server's non-granting
responds they are locksvc's windows, the same action by the same client;
and their state agrees with locksvc's {holder, waiters}: a holder heads
q, the rest of q waits, a client with hasLock holds the lock, and a
client's pc is acquireLock before its request, criticalSection until its
critical section, unlock until its unlock, Done after."""
import json, os, sys

task, ref = sys.argv[1], sys.argv[2]
TARGETS = ["ClientLockRequest", "ServerGrantLock", "ClientCriticalSection",
           "ClientUnlockRequest"]
runs = {}
for name in os.listdir(os.path.join(task, "locksvc-task")):
    for line in open(os.path.join(task, "locksvc-task", name)):
        w = json.loads(line)
        runs.setdefault(w["trace_id"], []).append(w)
for a in TARGETS:
    assert os.path.exists(os.path.join(task, "locksvc-task", a + ".ndjson")), \
        f"no windows of {a}: a harness gap"
PC_AFTER = {"ClientLockRequest": "criticalSection",
            "ClientCriticalSection": "unlock", "ClientUnlockRequest": "Done"}
for run, ws in sorted(runs.items()):
    ws.sort(key=lambda w: w["seq"])
    ref_ws = [json.loads(l) for l in open(os.path.join(ref, "locksvc", run + ".ndjson"))]
    ours = [w for w in ws if w["action"] in TARGETS]
    assert [(w["action"], w["input"]["client"]) for w in ours] == \
        [(w["action"], w["data"]["client"]) for w in ref_ws], f"{run}: not locksvc's windows"
    for w in ws:
        pre, post = w["pre_state"], w["post_state"]
        if w["action"].startswith("Server"):
            same = pre["hasLock"] == post["hasLock"] and pre["pc"] == post["pc"]
            q0, q1 = pre["q"], post["q"]
            # a respond appends a LockMsg's sender or drops the head at an
            # UnlockMsg; it grants when the new head is a newcomer
            moved = q1 == q0[1:] or (len(q1) == len(q0) + 1 and q1[:-1] == q0)
            grant = w["action"] == "ServerGrantLock"
            assert moved and grant == (bool(q1) and q1[0] != (q0[:1] or [None])[0]) and \
                (not grant or q1[0] == w["input"]["client"]), \
                f"{run}:{w['seq']}: {w['action']} takes q from {q0} to {q1}"
        else:
            c = str(w["input"]["client"])
            same = pre["q"] == post["q"] and all(
                pre[v][o] == post[v][o] for v in ("hasLock", "pc") for o in pre[v] if o != c)
        assert same, f"{run}:{w['seq']}: {w['action']} changes what another step owns"
    for w, r in zip(ours, ref_ws):
        st, holder, waiters = w["post_state"], r["post_state"]["holder"], r["post_state"]["waiters"]
        q = st["q"]
        if holder is not None:
            assert q and q[0] == holder, f"{run}:{w['seq']}: holder {holder}, q {q}"
        assert set(q[1:]) <= set(waiters), f"{run}:{w['seq']}: q {q}, waiters {waiters}"
        for c, has in st["hasLock"].items():
            assert not has or holder == int(c), f"{run}:{w['seq']}: {c} hasLock, holder {holder}"
        c = str(w["input"]["client"])
        assert st["pc"][c] == PC_AFTER.get(w["action"], st["pc"][c]), \
            f"{run}:{w['seq']}: {w['action']} leaves pc {st['pc'][c]}"
counts = {a: sum(w["action"] == a for ws in runs.values() for w in ws) for a in TARGETS}
print(" ".join(f"{a}={n}" for a, n in counts.items()))
