# capture grade: the reference spin grader (positive control) scores 28/28
# on the spin reference corpus, the mutant whose release does nothing
# (negative control) fails exactly the 11 release windows, and graders that
# crash, hang or answer garbage stop the run with a clear error.
# needs: reference node python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
ref=$REF/sysmobench-corpora/spin

py() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }
expect() { if py "$2" "$3"; then ok "$1"; else not_ok "$1" "$2 is false"; fi; }

expect_exit 0 "reference grader passes" '' \
	"$CAPTURE" grade --json --exec "node $here/spin-next.js" "$ref"
cp "$TMP/.stdout" "$TMP/ref.json"
expect "reference grader: 28/28, 22/22 state-changing, identity 6/28" \
	'r["all"]["passed"] == 28 == r["all"]["windows"] and r["all"]["changing_passed"] == 22 == r["all"]["changing_scored"] and r["all"]["identity"] == 6 and r["all"]["unscoreable"] == 0' "$TMP/ref.json"
"$CAPTURE" grade --exec "node $here/spin-next.js" "$ref" >"$TMP/ref.txt"
grep -qx 'pass rate: 28/28 = 100.0%' "$TMP/ref.txt" &&
	grep -qx 'identity base rate (post == pre): 6/28 = 21.4%' "$TMP/ref.txt" &&
	ok "the scorecard says 28/28 and 21.4%" || not_ok "the scorecard" "$(cat "$TMP/ref.txt")"

expect_exit 4 "no-op-release mutant fails (exit 4)" '' \
	"$CAPTURE" grade --json --exec "node $here/spin-noop-release.js" "$ref"
cp "$TMP/.stdout" "$TMP/mutant.json"
expect "mutant fails exactly the 11 release windows" \
	'r["all"]["failed"] == 11 and {f["action"] for f in r["failures"]} == {"ReleaseLock"} and [(a["action"], a["failed"], a["windows"]) for a in r["actions"]] == [("AcquireLock", 0, 17), ("ReleaseLock", 11, 11)]' "$TMP/mutant.json"
expect "mutant: 11/22 on state-changing windows" \
	'r["all"]["changing_passed"] == 11 and r["all"]["changing_scored"] == 22' "$TMP/mutant.json"

# The domain set (tests/spin/domain, recorded from real guests): the
# reference grader, a model of the lock's contract, accepts the lock()s
# that start spinning (state unchanged) and fails exactly the 4 releases
# the kernel allows and the contract forbids (of a free lock, by the
# non-holder).
noted "$CAPTURE" fold spin "$ROOT"/tests/spin/domain/*.ftrace -o "$TMP/dom" >/dev/null ||
	not_ok "fold the domain set" "$(why)"
expect_exit 4 "domain set: the reference grader fails some windows (exit 4)" '' \
	"$CAPTURE" grade --json --exec "node $here/spin-next.js" "$TMP/dom"
cp "$TMP/.stdout" "$TMP/dom.json"
expect "domain set: 60/64, the 4 failures the unchecked releases" \
	'r["all"]["passed"] == 60 and r["all"]["windows"] == 64 and sorted((f["action"], json.loads(f["why"].split(" in ")[1])["lockHeld"]) for f in r["failures"]) == [("ReleaseLock", False), ("ReleaseLock", False), ("ReleaseLock", True), ("ReleaseLock", True)]' "$TMP/dom.json"

# The same windows in stream form grade the same.
"$CAPTURE" convert --form stream "$ref/spin_seq.ndjson" "$TMP/seq.ndjson"
expect_exit 4 "stream-form input: mutant fails its 8 releases" '' \
	"$CAPTURE" grade --json --exec "node $here/spin-noop-release.js" "$TMP/seq.ndjson"
py 'r["all"]["failed"] == 8' "$TMP/.stdout" && ok "stream form: 8 failures" || not_ok "stream form: 8 failures" "$(head -c 300 "$TMP/.stdout")"

# Misbehaving graders.
expect_exit 6 "grader crashes" "spin_2thread.ndjson:1: the grader 'exit 3' exited with status 3" \
	"$CAPTURE" grade --exec 'exit 3' "$ref"
expect_exit 6 "grader dies midway" "spin_2thread.ndjson:3: the grader .* before answering" \
	"$CAPTURE" grade --exec 'read a; echo "{\"ok\":true}"; read b; echo "{\"ok\":true}"' "$ref"
expect_exit 6 "grader hangs" 'gave no verdict for this window within 1 s' \
	"$CAPTURE" grade --timeout 1 --exec 'sleep 60' "$ref"
expect_exit 3 "grader answers garbage" 'answered this window with "garbage", not a verdict' \
	"$CAPTURE" grade --exec 'while read l; do echo garbage; done' "$ref"
expect_exit 3 "grader answers twice" 'more lines than there were windows' \
	"$CAPTURE" grade --exec 'while read l; do echo "{\"ok\":true}"; done; echo "{\"ok\":true}"' "$ref"
expect_exit 6 "grader fails at the end" 'exited with status 2 after the last window' \
	"$CAPTURE" grade --exec 'while read l; do echo "{\"ok\":true}"; done; exit 2' "$ref"
# Hostile graders: every blocking step ends within --timeout
# (timeout 30 only guards the test against a grade that never ends), the
# grader's group is killed, and what it writes is read into a bounded
# buffer: a grader that prints without end fails at once.
bounded() {   # bounded CODE NAME PATTERN GRADER [INPUT]
	expect_exit "$1" "$2" "$3" timeout 30 "$CAPTURE" grade --timeout 1 \
		--exec "$4" "${5:-$ref}"
}
bounded 3 "a grader printing lines without end" \
	'spin_2thread.ndjson:1: .* wrote more than one line for this window' "yes '{\"ok\": true}'"
bounded 3 "a grader printing without a newline" \
	'answered this window with a line longer than 65536 bytes' "yes | tr -d '\\n'"
python3 -c 'import json; print(json.dumps({"action": "AcquireLock", "data": {"thread": 0, "callType": "lock", "pad": "x" * 300000}, "pre_state": {"lockHeld": False, "lockHolder": None}, "post_state": {"lockHeld": True, "lockHolder": 0}}))' >"$TMP/big.ndjson"
bounded 6 "a grader that never reads a window larger than the pipe" \
	'big.ndjson:1: the grader .* did not read this window within 1 s' 'sleep 60' "$TMP/big.ndjson"
bounded 6 "a grader that closes its output and stays" \
	"spin_2thread.ndjson:1: the grader .* hung up and did not exit within 1 s \\(killed\\)" 'exec >&-; sleep 60'
bounded 6 "a grader that never exits after the last window" \
	'did not exit within 1 s \(killed\) after the last window' \
	'while read l; do echo "{\"ok\":true}"; done; sleep 60'
bounded 3 "a verdict with more after its object" \
	'answered this window with ".*junk.*", not a verdict: more after the JSON object' \
	'while read l; do echo "{\"ok\": true} junk {\"ok\": false}"; done'
bounded 3 "a verdict, a NUL, then anything" \
	'not a verdict: a NUL byte in it' \
	'while read l; do printf "{\"ok\": true}\000{\"ok\": false}\n"; done'
bounded 3 "a verdict with its key twice" \
	'not a verdict: the key "ok" twice' \
	'while read l; do echo "{\"ok\": true, \"ok\": false}"; done'
# What the grader left running in its group (holding its stdout) goes
# with it: the grader itself exited 0.
bounded 0 "a grader that leaves a child behind" '' \
	"sleep 77.5 & while read l; do echo '{\"ok\":true}'; done"
pgrep -f 'sleep 77.5' >/dev/null && not_ok "the grader's group is gone" "$(pgrep -af 'sleep 77.5')" ||
	ok "the grader's group is gone"
expect_exit 0 "unscoreable windows are counted, not failed" '' \
	"$CAPTURE" grade --exec 'while read l; do echo "{\"unscoreable\":\"no model\"}"; done' "$ref"
grep -qx 'unscoreable: 28' "$TMP/.stdout" && ok "28 unscoreable" || not_ok "28 unscoreable" "$(cat "$TMP/.stdout")"
expect_exit 2 "--exec is required" '' "$CAPTURE" grade "$ref"
