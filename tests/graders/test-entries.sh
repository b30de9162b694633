#!/bin/bash
# etcd-entries (docs/etcd-entries.md) on the raft traces
# captured here (tests/canonical/etcd) and upstream's with_tla example:
# it folds byte-identically twice, drops to etcd's windows byte for byte,
# sees the truncation 11-partition makes, and passes raft-entries.js; hand-
# made appends with a wrong truncation fail that grader, saying why.
# needs: reference node python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
grader="node $here/raft-entries.js"

# corpus NAME TRACES...: etcd-entries and etcd folds of TRACES, checked.
corpus() {
	local name=$1; shift
	"$CAPTURE" fold etcd-entries "$@" -o "$TMP/$name" >/dev/null 2>"$TMP/err" ||
		not_ok "$name: etcd-entries folds" "$(tail -n 2 "$TMP/err")"
	"$CAPTURE" fold etcd-entries "$@" -o "$TMP/$name.2" >/dev/null 2>&1
	diff -r "$TMP/$name" "$TMP/$name.2" >"$TMP/diff" &&
		ok "$name: folding twice is byte-identical" ||
		not_ok "$name: folding twice is byte-identical" "$(head -n 3 "$TMP/diff")"
	"$CAPTURE" fold etcd "$@" -o "$TMP/$name.etcd" >/dev/null 2>&1
	python3 "$here/entries-drop.py" "$TMP/$name/etcd-entries" "$TMP/$name.etcd/etcd" \
		>"$TMP/drop" 2>&1 && ok "$name: without the terms, etcd's windows ($(cat "$TMP/drop"))" ||
		not_ok "$name: without the terms, etcd's windows" "$(tail -n 2 "$TMP/drop")"
	expect_exit 0 "$name: raft-entries.js passes every scored window" '' \
		"$CAPTURE" grade --json --exec "$grader" "$TMP/$name"
}
corpus fixtures "$ROOT"/tests/canonical/etcd/*.ndjson
corpus example "$REF/etcd-with-tla/example.ndjson"
"$CAPTURE" audit "$TMP/fixtures" >"$TMP/audit"
grep -q "^  follower  *HandleAppendEntries truncated, commit to leader's  *1 " "$TMP/audit" &&
	ok "11-partition's conflicting suffix is a truncated append" ||
	not_ok "the truncated append" "$(grep truncated "$TMP/audit" | head -n 3)"

# Hand-made: follower 2 of term 3 holds [1, 1, 2]; leader 1's append at
# index 1 (logTerm 1) of one entry of term 3 cuts entries 2-3.
win() { # NAME POST-TERMS [DATA-TERMS]
	python3 - "$2" "${3:-[3]}" >"$TMP/$1.ndjson" <<'PY'
import json, sys
post, ents = json.loads(sys.argv[1]), json.loads(sys.argv[2])
node = lambda role, terms, commit: {"role": role, "term": 3, "vote": "1",
    "commit": commit, "log": len(terms), "logTerms": terms}
lead = node("leader", [1, 3], 1)
pre = {"nodes": {"1": lead, "2": node("follower", [1, 1, 2], 1)}}
after = {"nodes": {"1": lead, "2": node("follower", post, 1)}}
print(json.dumps({"action": "HandleAppendEntries",
    "data": {"node": "2", "from": "1", "term": 3, "logTerm": 1, "index": 1,
             "entries": len(ents), "commit": 1, "entryTerms": ents},
    "pre_state": pre, "post_state": after}))
PY
}
grade() { "$CAPTURE" grade --system etcd-entries --json --exec "$grader" "$TMP/$1.ndjson"; }
win right '[1, 3]'
expect_exit 0 "the right truncation passes" '' grade right
mutant() { # NAME WHY POST-TERMS [DATA-TERMS]
	win "$1" "$3" "${4:-}"
	expect_exit 4 "wrong truncation fails: $1" '' grade "$1"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in r["failures"][0]["why"] else 1)' \
		"$TMP/.stdout" "$2" && ok "$1: $2" || not_ok "$1: $2" "$(head -c 300 "$TMP/.stdout")"
}
mutant "the conflicting tail kept" "entry 3 of term 2 after term 3" '[1, 3, 2]'
mutant "an entry before the append changed" "entry 1 has term 2, expected 1" '[2, 3]'
mutant "the new entry of another term" "entry 2 has term 2, expected 3" '[1, 2]'
mutant "matching entries cut" "3 entries expected, got 2" '[1, 1]' '[1]'
