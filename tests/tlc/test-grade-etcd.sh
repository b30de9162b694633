#!/bin/bash
# capture grade --tlc on etcd-task: the windows of tests/canonical/etcd's
# traces (the reference scenarios' and tests/raft/scenarios') and etcd-task's
# impossibility windows, graded in one TLC run against etcd-io/raft's own
# tla/etcdraft.tla, from the go.etcd.io/raft/v3 module scenarios/etcd/go.mod
# pins, with the CommunityModules it extends (../shared/reference/tla).
# Every failure is of a cause docs/disagreements.md names, as many as it
# says, and TLC accepts no impossibility window.
# needs: tlc go goproxy reference python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
page=$ROOT/docs/disagreements.md
source "$here/etcd-tlc.sh"

traces=$(ls "$ROOT"/tests/canonical/etcd/*.ndjson | grep -v 13-snapshot)
noted "$CAPTURE" fold etcd-task $traces --form canonical -o "$TMP/etcd" >/dev/null ||
	not_ok "fold etcd-task" "$(why)"
etcd_tlc etcd "$TMP/etcd" "$TMP/etcd/etcd-task/impossible"

python3 "$here/tlc-judge.py" graded fixtures "$TMP/etcd.tlc.json" | LC_ALL=C sort >"$TMP/graded"
python3 "$here/tlc-judge.py" page "$page" fixtures impossible | grep '^etcdraft\.tla ' |
	LC_ALL=C sort >"$TMP/page"
if diff "$TMP/page" "$TMP/graded" >"$TMP/diff"; then
	ok "etcdraft.tla rejects what docs/disagreements.md says, and accepts no impossibility window"
else
	not_ok "etcdraft.tla rejects what docs/disagreements.md says, and accepts no impossibility window" \
		"page (<) vs TLC (>): $(grep '^[<>]' "$TMP/diff" | head -n 6)"
fi
python3 - "$TMP/etcd.tlc.json" <<'PY' &&
import json, sys
card = json.load(open(sys.argv[1]))
acts = {a["action"]: a for a in card["actions"]}
targets = ["ElectionTimeout", "HandleVoteRequest", "ClientProposal", "HandleAppendEntries", "HandleHeartbeat"]
assert all(acts[t]["passed"] > 0 for t in targets), acts
scored = {a for a, t in acts.items() if t["passed"] + t["failed"]}
assert scored == set(targets), scored
imp = card["impossible"]
assert sum(a["windows"] for a in imp.values()) == 15, imp
assert sum(a["rejected"] for a in imp.values()) == 7, imp
assert 0 < card["all"]["more_steps"] < card["all"]["passed"], card["all"]
PY
	ok "the five targets graded, some passing in a handler's sub-steps; 7 impossibility windows scored, all rejected" ||
	not_ok "the five targets graded, some passing in a handler's sub-steps; 7 impossibility windows scored, all rejected" "see above"
