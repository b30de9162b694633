# Shared by the tests of rafts folded into etcd's projection
# (tests/hashicorp/, tests/raftrs/).  Source it after tests/lib.sh.

RAFT_GRADER="node $TESTS_DIR/graders/raft-next.js"

# raft_twice SYSTEM [VAR=VALUE VAR=VALUE]: capture SYSTEM --scenario all
# into $TMP/a and $TMP/b (each under the environment given for it: two
# schedules a harness must not be moved by), the two byte-identical, each
# of the five scenarios with windows.
raft_twice() {
	local sa=${2:-} sb=${3:-}
	check "capture $1 --scenario all${sa:+ under $sa}" env $sa "$CAPTURE" "$1" --scenario all -o "$TMP/a"
	check "a second capture${sb:+ under $sb}" env $sb "$CAPTURE" "$1" --scenario all -o "$TMP/b"
	if diff -r "$TMP/a" "$TMP/b" >"$TMP/diff" 2>&1; then
		ok "two captures byte-identical (windows, events, raw, manifest)"
	else
		not_ok "two captures byte-identical" "$(kept twice "$TMP/a" "$TMP/b"
			diff -rq "$TMP/a" "$TMP/b" | sed "s|$TMP/||g" | head -n 12
			f=$(cd "$TMP/a" && for f in raw/* "$1"/*; do
				cmp -s "$f" "$TMP/b/$f" || { echo "$f"; break; }; done)
			[ -z "$f" ] || { echo "$f:"; first_difference "$TMP/a/$f" "$TMP/b/$f"; })"
	fi
	for i in 1 2 3 4 5; do
		[ -s "$(ls "$TMP"/a/"$1"/0$i-*.ndjson 2>/dev/null)" ] &&
			ok "scenario 0$i has windows" || not_ok "scenario 0$i has windows" "none"
	done
}

# raft_five SYSTEM [VAR=VALUE VAR=VALUE]: raft_twice, then the five
# graded with no window unscoreable and the corpus verified.
raft_five() {
	raft_twice "$@"
	graded "$TMP/a" "the five scenarios"
	py 'r["all"]["unscoreable"] == 0' "$TMP/grade.json" &&
		ok "no window of the five unscoreable" ||
		not_ok "no window of the five unscoreable" "$(head -c 300 "$TMP/grade.json")"
	check "capture verify of the corpus" "$CAPTURE" verify "$TMP/a"
}

# py EXPR FILE: EXPR over FILE's JSON (r) is true.
py() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }

# graded DIR NAME: every window of DIR scored and passed by raft-next.js
# ($TMP/grade.json keeps the scorecard).
graded() {
	if "$CAPTURE" grade --json --exec "$RAFT_GRADER" "$1" >"$TMP/grade.json" 2>"$TMP/grade.err" &&
		py 'r["all"]["passed"] == r["all"]["windows"] - r["all"]["unscoreable"] > 0 and r["all"]["failed"] == 0' "$TMP/grade.json"; then
		ok "$2: raft-next.js passes every scored window"
	else
		not_ok "$2: raft-next.js passes every scored window" "$(head -c 400 "$TMP/grade.json") $(tail -n 3 "$TMP/grade.err")"
	fi
}

# fails CORPUS: its scorecard's failures, one a line (file, action, why;
# not the line: raft-rs may have one more window before,
# docs/raft-differential.md).
fails() {
	"$CAPTURE" grade --json --exec "$RAFT_GRADER" "$1" 2>/dev/null |
		python3 -c 'import json, os, sys
try:
    failures = json.load(sys.stdin)["failures"]
except ValueError:
    sys.exit("no scorecard of " + sys.argv[1])
for f in failures:
    print(os.path.basename(f["file"]), f["action"], f["why"])' "$1" 2>&1
}

# explored SYSTEM DIR: DIR, a corpus of capture SYSTEM --explore --seed 1,
# kept scenarios (5 or more), each named by its search.
explored() {
	local n
	n=$(ls "$2/scenarios" 2>/dev/null | grep -c -- '-explored$')
	[ "$n" -ge 5 ] && ok "the search kept scenarios ($n)" ||
		not_ok "the search kept scenarios" "$n kept"
	grep -q "capture $1 --explore: seed 1" "$2/scenarios/001-explored" &&
		ok "a kept scenario names its search" ||
		not_ok "a kept scenario names its search" "$(head -n 1 "$2/scenarios/001-explored")"
}
