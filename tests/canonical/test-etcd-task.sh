# etcd-task (docs/task-projections.md): real captured raft traces at the task's
# granularity: the same windows as etcd's, grouped by variable, the
# message received as the input, logLastTerm followed from the trace and
# refused where no trace shows it.
# needs: venv node python3
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/impossible.sh"
here=$(cd "$(dirname "$0")" && pwd)
PY=$ROOT/build/venv/bin/python
traces=()
for f in "$here"/etcd/*.ndjson; do
	case $f in *13-snapshot*) ;; *) traces+=("$f") ;; esac
done
"$CAPTURE" fold etcd-task "${traces[@]}" -o "$TMP/task" >/dev/null 2>"$TMP/err" ||
	not_ok "etcd-task folds the captured traces" "$(tail -n 2 "$TMP/err")"
"$CAPTURE" fold etcd "${traces[@]}" --form event -o "$TMP/etcd" >/dev/null 2>"$TMP/err" ||
	not_ok "etcd folds the captured traces" "$(tail -n 2 "$TMP/err")"

check "every canonical file valid against the schema" \
	"$PY" "$here/validate.py" "$ROOT/tests/canonical-window.schema.json" \
	$(find "$TMP/task/etcd-task" -name '*.ndjson' | sort)
check "one file per action, window_id from 1, trace_id the runs" \
	python3 "$here/check-files.py" "$TMP/task" etcd-task
check "etcd's windows by variable, the exact message, no harness gap" \
	python3 "$here/etcd-task-checks.py" "$TMP/task" "$TMP/etcd"

# A snapshot's entries carry no term in the trace: refused, not invented.
expect_exit 3 "a log grown by a snapshot is refused" \
	"13-snapshot.ndjson:[0-9]+: etcd-task: the term of node 3's last entry is not observable" \
	"$CAPTURE" fold etcd-task "$here/etcd/13-snapshot.ndjson" -o "$TMP/snap"
nothing_left "the refused fold leaves nothing" "$TMP/snap"

# An append whose logTerm is not the sender's term at its index: the
# terms followed and the trace disagree, which is refused.
python3 - "$here/etcd/02-proposal.ndjson" >"$TMP/bad.ndjson" <<'PY'
import json, sys
done = False
for line in open(sys.argv[1]):
    e = json.loads(line)
    m = e.get("msg") or {}
    if not done and e["name"] == "SendAppendEntriesRequest" and m.get("index", 0) > 0:
        m["logTerm"] += 5
        done = True
    print(json.dumps(e, separators=(",", ":")))
PY
expect_exit 4 "an append's logTerm the sender's log does not show is refused" \
	"bad.ndjson:[0-9]+: etcd-task: node [0-9]+ sends an append whose logTerm" \
	"$CAPTURE" fold etcd-task "$TMP/bad.ndjson" -o "$TMP/bad"

# The impossibility windows: one for each cell etcd's domain declares
# impossible, with its reason, in the task's shape, but the 12 raft's
# handler makes given the window's input (a heartbeat's commit, a
# snapshot of a new term, a dropped proposal: impossible only by what a
# sender sends); the audit refuses each alone (the graders' verdicts:
# tests/graders/test-sysmobench.sh, tests/tlc).
check "one impossibility window per impossible cell of the domain, but those of the sender's, with its reason" \
	python3 - "$TMP/task" <<'PY'
import glob, json, os, sys
c = sys.argv[1]
cells = {f"{i['pre']}: {i['action']}": i["why"]
         for i in json.load(open(os.path.join(c, "audit.json")))["coverage"]["impossible"]}
drawn = {}
for path in glob.glob(os.path.join(c, "etcd-task", "impossible", "*.ndjson")):
    for line in open(path):
        w = json.loads(line)
        assert w["trace_id"] not in drawn, f"{w['trace_id']} drawn twice"
        drawn[w["trace_id"]] = w["impossible"]
sender = ("HandleHeartbeat commit advanced", "HandleSnapshot", "ClientProposal dropped")
expect = {c: why for c, why in cells.items() if not any(k in c for k in sender)}
assert len(cells) - len(expect) == 12, sorted(set(cells) - set(expect))
assert drawn == expect, f"expected {sorted(expect)}, drawn {sorted(drawn)}"
PY
refused_each etcd-task etcd-task "$TMP/task"/etcd-task/impossible/*.ndjson
