"""spin-task-checks.py CORPUS: a spin-task canonical corpus has windows of
every target action (no harness gap), among them the spin phase (a lock()
beginning on a held lock) and failed tries; each of its runs' normalized
events but StopSpinning is one window, the same action, in order, whose
post-state is what the events say: lockState the event's own "state", a
thread's pc acquiring inside a call, locked from its AcquireSuccess to its
own Release, idle otherwise (replayed here, apart from the fold)."""
import json, os, sys

corpus = sys.argv[1]
actions = ["TryAcquireBlocking", "TryAcquireNonBlocking", "AcquireSuccess",
           "AcquireFail", "Release"]
windows = {}
for a in actions:
    path = os.path.join(corpus, "spin-task", a + ".ndjson")
    assert os.path.exists(path), f"no windows of {a}: a harness gap"
    for line in open(path):
        w = json.loads(line)
        windows[(w["trace_id"], w["seq"])] = w
by_action = {a: [w for w in windows.values() if w["action"] == a] for a in actions}
spin = [w for w in by_action["TryAcquireBlocking"]
        if w["pre_state"]["lockState"] == "locked"]
assert spin, "no lock() began on a held lock (the spin phase)"
assert by_action["AcquireFail"], "no failed try"
for run in sorted(os.listdir(os.path.join(corpus, "events"))):
    trace = run[:-len(".ndjson")]
    events = [json.loads(l) for l in open(os.path.join(corpus, "events", run))]
    events = [e for e in events if e["action"] != "StopSpinning"]
    calling, critical = set(), set()
    for seq, e in enumerate(events, 1):
        t, a = e["actor"], e["action"]
        if a.startswith("TryAcquire"):
            calling.add(t)
        elif a in ("AcquireSuccess", "AcquireFail"):
            calling.discard(t)
            if a == "AcquireSuccess":
                critical.add(t)
        elif a == "Release":
            critical.discard(t)
        pc = {str(u): "acquiring" if u in calling else
              "locked" if u in critical else "idle" for u in (0, 1)}
        post = {"lockState": e["state"], "pc": pc}
        w = windows.get((trace, seq))
        assert w, f"{trace}: event {seq} ({e['action']}) has no window"
        assert w["action"] == e["action"] and w["actor"] == e["actor"], \
            f"{trace}:{seq}: window {w['action']} of {w['actor']}, event {e['action']} of {e['actor']}"
        assert w["post_state"] == post, f"{trace}:{seq}: post {w['post_state']}, events say {post}"
    assert (trace, len(events) + 1) not in windows, f"{trace}: more windows than events"
print(" ".join(f"{a}={len(by_action[a])}" for a in actions), f"spin-phase={len(spin)}")
