"""check-files.py CORPUS SYSTEM: the canonical corpus's SYSTEM/ holds one
file per action (ACTION.ndjson, only that action), window_id 1.. in each,
every trace_id a run of the manifest, every run's seq 1..n without gap."""
import json, os, sys

corpus, system = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(corpus, "MANIFEST.json")))
runs = {r["name"]: sum(r["windows"].values()) for r in manifest["runs"]}
seqs = {}
d = os.path.join(corpus, system)
for name in sorted(os.listdir(d)):
    if not name.endswith(".ndjson"):
        continue
    action = name[:-len(".ndjson")]
    for i, line in enumerate(open(os.path.join(d, name)), 1):
        w = json.loads(line)
        keys = ["window_id", "trace_id", "seq", "action", "actor",
                "pre_state", "post_state", "input"]
        assert list(w) == keys, f"{name}:{i}: keys {list(w)}"
        assert w["window_id"] == i, f"{name}:{i}: window_id {w['window_id']}"
        assert w["action"] == action, f"{name}:{i}: action {w['action']}"
        assert w["trace_id"] in runs, f"{name}:{i}: trace {w['trace_id']}"
        seqs.setdefault(w["trace_id"], []).append(w["seq"])
for run, n in runs.items():
    got = sorted(seqs.get(run, []))
    assert got == list(range(1, n + 1)), f"run {run}: seqs {got[:5]}... of {n}"
