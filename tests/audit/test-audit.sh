# capture audit: the done-when figures on the reference corpora, every kind
# of input (corpus, directory, file; event and stream form), merging, the
# SVG, audit.json in folded corpora, and bad input.
source "$(dirname "$0")/../lib.sh"
ref=$REF/sysmobench-corpora

# jq-less JSON checks: py EXPR FILE -- EXPR sees the report as r.
py() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }
expect() { # NAME EXPR FILE
	if py "$2" "$3"; then ok "$1"; else not_ok "$1" "$2 is false"; fi
}

"$CAPTURE" audit "$ref/spin" >"$TMP/spin.txt" && "$CAPTURE" audit --json "$ref/spin/" >"$TMP/spin.json" ||
	not_ok "audit the spin reference corpus" "exit $?"
expect "spin: 8/18 combinations covered" 'r["coverage"]["covered"] == 8 and r["coverage"]["total"] == 18' "$TMP/spin.json"
expect "spin: identity 6/28 overall" 'r["identity"] == 6 and r["windows"] == 28' "$TMP/spin.json"
expect "spin: identity 6/17 of acquires, 0/11 of releases" \
	'[(a["action"], a["windows"], a["identity"]) for a in r["actions"]] == [("AcquireLock", 17, 6), ("ReleaseLock", 11, 0)]' "$TMP/spin.json"
expect "spin: the 10 uncovered combinations" \
	'sorted((u["pre"], u["action"]) for u in r["coverage"]["uncovered"]) == sorted([
	("free", "ReleaseLock(0)"), ("free", "ReleaseLock(1)"),
	("held by 0", "AcquireLock(0, lock)"), ("held by 0", "AcquireLock(0, try)"),
	("held by 0", "AcquireLock(1, lock)"), ("held by 0", "ReleaseLock(1)"),
	("held by 1", "AcquireLock(0, lock)"), ("held by 1", "AcquireLock(1, lock)"),
	("held by 1", "AcquireLock(1, try)"), ("held by 1", "ReleaseLock(0)")])' "$TMP/spin.json"
expect "spin: state-changing windows and schedules" \
	'r["state_changing"] == 22 and r["schedules"] == {"runs": 2, "distinct_actions": 2, "distinct_with_data": 2}' "$TMP/spin.json"
expect "spin: free AcquireLock(1, try) is covered by spin_seq only" \
	'[(s["pre"], s["action"], s["run"].endswith("spin_seq.ndjson")) for s in r["coverage"]["single_run"]] == [("free", "AcquireLock(1, try)", True)]' "$TMP/spin.json"
grep -q '^coverage: 8/18 covered' "$TMP/spin.txt" && grep -q '^uncovered: 10' "$TMP/spin.txt" &&
	grep -Eq '^  all +28  6/28 = 21\.4% ' "$TMP/spin.txt" && grep -Eq '^  AcquireLock +17  6/17 = 35\.3% ' "$TMP/spin.txt" &&
	ok "spin: the text table says 8/18, 6/28 = 21.4%, 6/17 = 35.3%" ||
	not_ok "spin: the text table" "$(head -n 20 "$TMP/spin.txt")"

"$CAPTURE" audit --json "$ref/locksvc" >"$TMP/locksvc.json" || not_ok "audit locksvc" "exit $?"
expect "locksvc: inferred from the action names" 'r["system"] == "locksvc"' "$TMP/locksvc.json"
expect "locksvc: 15 windows per action" \
	'len(r["actions"]) == 4 and all(a["windows"] == 15 for a in r["actions"])' "$TMP/locksvc.json"
expect "locksvc: identity 15/60 = 25%" 'r["identity"] * 4 == r["windows"] == 60' "$TMP/locksvc.json"
expect "locksvc: domain from its 3 clients, 12 pre-state classes" \
	'r["coverage"]["total"] == 12 * 4 * 3 and len(r["coverage"]["columns"]) == 12' "$TMP/locksvc.json"

"$CAPTURE" audit --json "$ref/etcd" >"$TMP/etcd.json" || not_ok "audit etcd" "exit $?"
expect "etcd: audited by classes, every window inside the domain" \
	'r["system"] == "etcd" and r["coverage"]["describes"].startswith("classes") and r["coverage"]["outside"] == {} and sum(c["windows"] for c in r["coverage"]["cells"]) == r["windows"]' "$TMP/etcd.json"

# The same windows in stream form, and several inputs merged.
for f in spin_2thread spin_seq; do
	"$CAPTURE" convert --form stream "$ref/spin/$f.ndjson" "$TMP/$f.ndjson"
done
"$CAPTURE" audit --json "$TMP/spin_2thread.ndjson" "$TMP/spin_seq.ndjson" >"$TMP/stream.json"
expect "stream form audits like event form" \
	"r['coverage']['cells'] == $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["coverage"]["cells"])' "$TMP/spin.json")" "$TMP/stream.json"
cp "$ref/spin/spin_2thread.ndjson" "$TMP/again.ndjson"
"$CAPTURE" audit --json "$ref/spin" "$TMP/again.ndjson" >"$TMP/merged.json"
expect "inputs merge: 36 windows, 3 runs, 2 distinct schedules, still 1 single-run cell" \
	'r["windows"] == 36 and r["schedules"]["runs"] == 3 and r["schedules"]["distinct_actions"] == 2 and len(r["coverage"]["single_run"]) == 1' "$TMP/merged.json"

# A folded corpus carries audit.json, listed in its manifest.
"$CAPTURE" fold spin "$ROOT/tests/spin-fold/contention.log" -o "$TMP/corpus" >/dev/null
expect "audit.json is in the corpus and its manifest" \
	'"audit.json" in r["files"]' "$TMP/corpus/MANIFEST.json"
"$CAPTURE" audit --json "$TMP/corpus" >"$TMP/corpus.json"
expect "audit.json agrees with capture audit on the corpus" \
	"r['coverage'] == json.load(open('$TMP/corpus.json'))['coverage'] and r['runs'] == ['spin/contention.ndjson']" "$TMP/corpus/audit.json"

# The SVG: deterministic, renders, one cell per combination in its class.
"$CAPTURE" audit --svg "$TMP/a.svg" "$ref/spin" >/dev/null
"$CAPTURE" audit --svg "$TMP/b.svg" "$ref/spin" >/dev/null
same_bytes "the SVG is deterministic" "$TMP/a.svg" "$TMP/b.svg"
if ! command -v rsvg-convert >/dev/null; then
	not_ok "the SVG renders" "rsvg-convert missing (librsvg2-bin: make deps)"
elif rsvg-convert "$TMP/a.svg" -o "$TMP/a.png" && [ -s "$TMP/a.png" ]; then
	ok "the SVG renders"
else
	not_ok "the SVG renders" "rsvg-convert failed"
fi
cells() { grep -c "width=\"40\" height=\"26\" fill=\"$1\"" "$TMP/a.svg"; }
[ "$(cells '#43a047')/$(cells '#ffca28')/$(cells '#e0e0e0')" = 6/2/10 ] &&
	ok "SVG: 6 covered, 2 identity-only, 10 missing cells" ||
	not_ok "SVG cells" "$(cells '#43a047')/$(cells '#ffca28')/$(cells '#e0e0e0')"

# Bad input: file:line, exit code.
{ head -n 2 "$ref/spin/spin_seq.ndjson"; echo '{"action": "AcquireLock", "data": {}'; } >"$TMP/bad.ndjson"
expect_exit 3 "malformed window line" 'bad.ndjson:3:' "$CAPTURE" audit "$TMP/bad.ndjson"
sed '2s/"pre_state"/"pre"/' "$ref/spin/spin_seq.ndjson" >"$TMP/nopre.ndjson"
expect_exit 3 "event-form window without pre_state" 'nopre.ndjson:2: window lacks an object "pre_state"' "$CAPTURE" audit "$TMP/nopre.ndjson"
expect_exit 3 "missing input" 'nosuch: no such file' "$CAPTURE" audit "$TMP/nosuch"
mkdir -p "$TMP/empty"
expect_exit 3 "directory without windows" 'empty: no MANIFEST.json and no' "$CAPTURE" audit "$TMP/empty"
expect_exit 2 "--system contradicting the manifest" 'system' "$CAPTURE" audit --system locksvc "$TMP/corpus"
expect_exit 2 "two systems at once" 'one system at a time' "$CAPTURE" audit "$TMP/corpus" "$ref/locksvc"
expect_exit 2 "no input" '' "$CAPTURE" audit

# Inputs without a window (issue 16.1): refused at the file, exit 3 -- once a
# qsort(NULL, 0) that UBSan stopped, and without it "0 windows".
: >"$TMP/nowin.ndjson"
expect_exit 3 "an empty window file" 'nowin.ndjson: no windows' \
	"$CAPTURE" audit --system spin "$TMP/nowin.ndjson"
head -n 1 "$ref/locksvc/locksvc_run01.ndjson" >"$TMP/seedonly.ndjson"
expect_exit 3 "a stream-form file with only its initial state" \
	'seedonly.ndjson: no windows to audit' "$CAPTURE" audit --system locksvc "$TMP/seedonly.ndjson"
rm -rf "$TMP/nowin-corpus"
cp -r "$TMP/corpus" "$TMP/nowin-corpus"
for f in "$TMP"/nowin-corpus/spin/*.ndjson; do : >"$f"; done
expect_exit 3 "a corpus whose window file is empty" 'nowin-corpus/spin/.*: no windows' \
	"$CAPTURE" audit "$TMP/nowin-corpus"
for runs in '[]' 'null' '"x"'; do
	python3 - "$TMP/corpus/MANIFEST.json" "$TMP/nowin-corpus/MANIFEST.json" "$runs" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["runs"] = json.loads(sys.argv[3])
json.dump(m, open(sys.argv[2], "w"))
PY
	expect_exit 3 "a manifest whose runs is $runs" \
		'nowin-corpus/MANIFEST.json: "runs" is not an array' \
		"$CAPTURE" audit "$TMP/nowin-corpus"
done
