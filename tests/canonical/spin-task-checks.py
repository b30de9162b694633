"""spin-task-checks.py CORPUS: a spin-task canonical corpus has windows of
every target action (no harness gap), among them the spin phase (a lock()
beginning on a held lock) and failed tries; each of its runs' normalized
events but StopSpinning is one window, the same action, in order, whose
post-state is what the events say: lockState the event's own "state", a
thread's pc acquiring inside a call, locked from its AcquireSuccess to its
own Release, idle otherwise (replayed here, apart from the fold).

The replay reads the run's raw trace, traces/trace_RUN.jsonl, the shape
SysMoBench's spin generate_windows.py reads: one event a line, exactly
{seq, action, actor, state} in that order, seq 1, 2, ..., state the lock
after the event; it must say what the run's normalized events say, so
the windows follow from the trace their generator would be given."""
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
TRACE_KEYS = ["seq", "action", "actor", "state"]
runs = sorted(r[:-len(".ndjson")] for r in os.listdir(os.path.join(corpus, "events")))
traces = sorted(os.listdir(os.path.join(corpus, "traces")))
assert traces == [f"trace_{r}.jsonl" for r in runs], f"traces {traces} for runs {runs}"


def read_trace(trace):
    """The trace's events, its shape checked against the events'."""
    lines = open(os.path.join(corpus, "traces", f"trace_{trace}.jsonl")).read().splitlines()
    events = [json.loads(l) for l in open(os.path.join(corpus, "events", trace + ".ndjson"))]
    assert len(lines) == len(events), f"{trace}: {len(lines)} trace lines, {len(events)} events"
    out = []
    for seq, (line, e) in enumerate(zip(lines, events), 1):
        t = json.loads(line)
        assert list(t) == TRACE_KEYS, f"trace_{trace}:{seq}: keys {list(t)}"
        assert t["seq"] == seq, f"trace_{trace}:{seq}: seq {t['seq']}"
        assert t["action"] in actions + ["StopSpinning"], f"trace_{trace}:{seq}: {t['action']}"
        assert t["actor"] in (0, 1) and t["state"] in ("locked", "unlocked"), \
            f"trace_{trace}:{seq}: {line}"
        assert [t[k] for k in TRACE_KEYS[1:]] == [e[k] for k in TRACE_KEYS[1:]], \
            f"trace_{trace}:{seq}: {line}, the events say {e}"
        out.append(t)
    return out


for trace in runs:
    events = [e for e in read_trace(trace) if e["action"] != "StopSpinning"]
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
