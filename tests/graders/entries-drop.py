# entries-drop.py ENTRIES ETCD: every window file of the etcd-entries
# directory ENTRIES, without its logTerms and entryTerms, is ETCD's file of
# the same name, line for line; each logTerms is its log long.  Prints the
# windows and the terms no event shows (null).
import json, os, sys

entries, etcd = sys.argv[1:]
windows = unknown = 0
names = sorted(f for f in os.listdir(entries) if f.endswith(".ndjson"))
assert names == sorted(f for f in os.listdir(etcd) if f.endswith(".ndjson")), "other runs"
for name in names:
    a = open(os.path.join(entries, name)).read().splitlines()
    b = open(os.path.join(etcd, name)).read().splitlines()
    assert len(a) == len(b), f"{name}: {len(a)} windows, etcd {len(b)}"
    for k, (x, y) in enumerate(zip(a, b), 1):
        w = json.loads(x)
        for n in w["state"]["nodes"].values():
            assert len(n["logTerms"]) == n["log"], f"{name}:{k}: logTerms not log long"
            unknown += n.pop("logTerms").count(None)
        w.get("data", {}).pop("entryTerms", None)
        assert w == json.loads(y), f"{name}:{k}: differs from etcd's"
        windows += 1
print(f"{windows} windows, {unknown} terms unknown")
