# capture audit: the done-when figures on the reference corpora, every kind
# of input (corpus, directory, file; event and stream form), merging, the
# SVG, audit.json in folded corpora, the four cell statuses (covered,
# reachable, impossible, observed never completing), and bad input.
# needs: reference python3 rsvg-convert
source "$(dirname "$0")/../lib.sh"
ref=$REF/sysmobench-corpora

# jq-less JSON checks: py EXPR FILE -- EXPR sees the report as r.
py() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }
expect() { # NAME EXPR FILE
	if py "$2" "$3"; then ok "$1"; else not_ok "$1" "$2 is false"; fi
}

noted "$CAPTURE" audit "$ref/spin" >"$TMP/spin.txt" && noted "$CAPTURE" audit --json "$ref/spin/" >"$TMP/spin.json" ||
	not_ok "audit the spin reference corpus" "$(why)"
expect "spin: 8/18 reachable combinations covered, 18 in all" \
	'r["coverage"]["covered"] == r["coverage"]["observed"] == 8 and r["coverage"]["reachable"] == 18 and r["coverage"]["total"] == 18' "$TMP/spin.json"
expect "spin: identity 6/28 overall" 'r["identity"] == 6 and r["windows"] == 28' "$TMP/spin.json"
expect "spin: identity 6/17 of acquires, 0/11 of releases" \
	'[(a["action"], a["windows"], a["identity"]) for a in r["actions"]] == [("AcquireLock", 17, 6), ("ReleaseLock", 11, 0)]' "$TMP/spin.json"
expect "spin: the 10 reachable uncovered combinations" \
	'sorted((u["pre"], u["action"]) for u in r["coverage"]["uncovered"]) == sorted([
	("free", "ReleaseLock(0)"), ("free", "ReleaseLock(1)"),
	("held by 0", "AcquireLock(0, lock)"), ("held by 0", "AcquireLock(1, lock)"),
	("held by 0", "AcquireLock(0, try)"), ("held by 0", "ReleaseLock(1)"),
	("held by 1", "AcquireLock(0, lock)"), ("held by 1", "AcquireLock(1, lock)"),
	("held by 1", "AcquireLock(1, try)"), ("held by 1", "ReleaseLock(0)")])' "$TMP/spin.json"
expect "spin: no cell is impossible (a lock() on a held lock spins, or never returns)" \
	'r["coverage"]["impossible"] == []' "$TMP/spin.json"
expect "spin: state-changing windows and schedules" \
	'r["state_changing"] == 22 and r["schedules"] == {"runs": 2, "distinct_actions": 2, "distinct_with_data": 2}' "$TMP/spin.json"
expect "spin: free AcquireLock(1, try) is covered by spin_seq only" \
	'[(s["pre"], s["action"], s["run"].endswith("spin_seq.ndjson")) for s in r["coverage"]["single_run"]] == [("free", "AcquireLock(1, try)", True)]' "$TMP/spin.json"
grep -qF 'coverage: 8/18 reachable observed (8 covered by windows, 0 only never completing; 18 cells, 0 impossible)' "$TMP/spin.txt" &&
	grep -q '^uncovered (reachable): 10$' "$TMP/spin.txt" && grep -q '^impossible: 0$' "$TMP/spin.txt" &&
	grep -q '^observed, never completing: 0$' "$TMP/spin.txt" &&
	grep -Eq '^  all +28  6/28 = 21\.4% ' "$TMP/spin.txt" && grep -Eq '^  AcquireLock +17  6/17 = 35\.3% ' "$TMP/spin.txt" &&
	ok "spin: the text table says 8/18 (none impossible), 6/28 = 21.4%, 6/17 = 35.3%" ||
	not_ok "spin: the text table" "$(head -n 20 "$TMP/spin.txt")"

noted "$CAPTURE" audit --json "$ref/locksvc" >"$TMP/locksvc.json" || not_ok "audit locksvc" "$(why)"
expect "locksvc: inferred from the action names" 'r["system"] == "locksvc"' "$TMP/locksvc.json"
expect "locksvc: 15 windows per action" \
	'len(r["actions"]) == 4 and all(a["windows"] == 15 for a in r["actions"])' "$TMP/locksvc.json"
expect "locksvc: identity 15/60 = 25%" 'r["identity"] * 4 == r["windows"] == 60' "$TMP/locksvc.json"
expect "locksvc: domain from its 3 clients, 12 pre-state classes" \
	'r["coverage"]["total"] == 12 * 4 * 3 and len(r["coverage"]["columns"]) == 12' "$TMP/locksvc.json"
expect "locksvc: 24/30 reachable covered; the 6 left are requests while another client holds the lock" \
	'r["coverage"]["covered"] == 24 and r["coverage"]["reachable"] == 30 and len(r["coverage"]["impossible"]) == 114 and all(u["pre"].startswith("held by other") and u["action"].startswith("ClientLockRequest") for u in r["coverage"]["uncovered"])' "$TMP/locksvc.json"

noted "$CAPTURE" audit --json "$ref/etcd" >"$TMP/etcd.json" && noted "$CAPTURE" audit "$ref/etcd" >"$TMP/etcd.txt" ||
	not_ok "audit etcd" "$(why)"
expect "etcd: audited by classes, every window inside the domain" \
	'r["system"] == "etcd" and r["coverage"]["describes"].startswith("classes") and r["coverage"]["outside"] == {} and sum(c["windows"] for c in r["coverage"]["cells"]) == r["windows"]' "$TMP/etcd.json"
expect "etcd: still 13/92 covered, now against 65 reachable (27 impossible)" \
	'(r["coverage"]["covered"], r["coverage"]["total"], r["coverage"]["reachable"], len(r["coverage"]["impossible"])) == (13, 92, 65, 27)' "$TMP/etcd.json"
expect "etcd: the impossible classes, each with its reason" \
	'sorted((u["pre"], u["action"]) for u in r["coverage"]["impossible"]) == sorted([
	("follower", "ClientProposal appended"), ("follower", "BecomeLeader"), ("follower", "BecomeFollower"),
	("precandidate", "ClientProposal appended"), ("precandidate", "ClientProposal dropped"),
	("precandidate", "BecomeLeader"), ("precandidate", "Commit"),
	("candidate", "HandleVoteRequest granted"), ("candidate", "HandleHeartbeat commit advanced"),
	("candidate", "HandleHeartbeat commit advanced, new term"), ("candidate", "ClientProposal appended"),
	("leader", "ElectionTimeout"), ("leader", "HandleVoteRequest granted"),
	("leader", "HandleAppendEntries appended"), ("leader", "HandleAppendEntries no new entries"),
	("leader", "BecomeLeader"),
	("follower", "ClientProposal dropped"), ("follower", "Commit"),
	("candidate", "ClientProposal dropped"), ("candidate", "Commit"),
	("follower", "HandleHeartbeat commit advanced, new term"),
	("precandidate", "HandleHeartbeat commit advanced, new term"),
	("leader", "HandleHeartbeat commit advanced, new term"),
	("follower", "HandleSnapshot, new term"), ("precandidate", "HandleSnapshot, new term"),
	("candidate", "HandleSnapshot, new term"), ("leader", "HandleSnapshot, new term")]) and all(len(u["why"]) > 20 for u in r["coverage"]["impossible"])' "$TMP/etcd.json"
grep -qF 'coverage: 13/65 reachable observed (13 covered by windows, 0 only never completing; 92 cells, 27 impossible)' "$TMP/etcd.txt" &&
	grep -q '^uncovered (reachable): 52$' "$TMP/etcd.txt" &&
	ok "etcd: the text says 13/65 reachable covered (92 cells, 27 impossible)" ||
	not_ok "etcd: the text" "$(grep -E '^(coverage|uncovered|impossible)' "$TMP/etcd.txt")"

# Coverage arithmetic, on every system with a domain.
for sys in spin locksvc etcd; do
	expect "$sys: observed + uncovered = reachable = total - impossible, covered <= observed" \
		'(lambda c: c["covered"] == len(c["cells"]) <= c["observed"] and c["observed"] + len(c["uncovered"]) == c["reachable"] == c["total"] - len(c["impossible"]))(r["coverage"])' "$TMP/$sys.json"
done

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
"$CAPTURE" fold spin "$ROOT/tests/spin/contention.log" -o "$TMP/corpus" >/dev/null
expect "audit.json is in the corpus and its manifest" \
	'"audit.json" in r["files"]' "$TMP/corpus/MANIFEST.json"
"$CAPTURE" audit --json "$TMP/corpus" >"$TMP/corpus.json"
expect "audit.json agrees with capture audit on the corpus" \
	"r['coverage'] == json.load(open('$TMP/corpus.json'))['coverage'] and r['runs'] == ['spin/contention.ndjson']" "$TMP/corpus/audit.json"

# The SVG: deterministic, renders, one cell per combination in its class.
"$CAPTURE" audit --svg "$TMP/a.svg" "$ref/spin" >/dev/null
"$CAPTURE" audit --svg "$TMP/b.svg" "$ref/spin" >/dev/null
same_bytes "the SVG is deterministic" "$TMP/a.svg" "$TMP/b.svg"
if rsvg-convert "$TMP/a.svg" -o "$TMP/a.png" && [ -s "$TMP/a.png" ]; then
	ok "the SVG renders"
else
	not_ok "the SVG renders" "rsvg-convert failed"
fi
cells() { grep -c "width=\"40\" height=\"26\" fill=\"$1\"" "${2:-$TMP/a.svg}"; }
[ "$(cells '#43a047')/$(cells '#ffca28')/$(cells '#e0e0e0')/$(cells '#ffffff')/$(grep -c '^<line' "$TMP/a.svg")" = 6/2/10/0/1 ] &&
	grep -qF 'spin: 8/18 reachable combinations observed (0 never completing; 0 impossible of 18)' "$TMP/a.svg" &&
	ok "SVG: 6 covered, 2 identity-only, 10 reachable, no impossible cell (the legend's struck one alone); 8/18 in the title" ||
	not_ok "SVG cells" "$(cells '#43a047')/$(cells '#ffca28')/$(cells '#e0e0e0')/$(cells '#ffffff')"

# A window in a cell the domain declares impossible: the fold or the
# declaration is wrong, so the audit refuses it, naming the window.
{ echo '{"action": "AcquireLock", "data": {"thread": 1, "callType": "lock"}, "pre_state": {"lockHeld": true, "lockHolder": 0, "spinning": []}, "post_state": {"lockHeld": true, "lockHolder": 0, "spinning": [1]}}'
  echo '{"action": "AcquireLock", "data": {"thread": 1, "callType": "try"}, "pre_state": {"lockHeld": true, "lockHolder": 0, "spinning": [1]}, "post_state": {"lockHeld": true, "lockHolder": 0, "spinning": [1]}}'
} >"$TMP/impossible.ndjson"
expect_exit 4 "a spin-spinning window in an impossible cell is refused with file:line" \
	'impossible.ndjson:2: AcquireLock window in cell \(held by 0, spinning \{1\}, AcquireLock\(1, try\)\), which spin-spinning declares impossible \(the actor is inside spin_lock\(\)' \
	"$CAPTURE" audit --system spin-spinning "$TMP/impossible.ndjson"
n1='{"role": "leader", "term": 2, "vote": "1", "commit": 0, "log": 1}'
n1b='{"role": "candidate", "term": 3, "vote": "1", "commit": 0, "log": 1}'
echo "{\"action\": \"ElectionTimeout\", \"data\": {\"node\": \"1\"}, \"pre_state\": {\"nodes\": {\"1\": $n1}}, \"post_state\": {\"nodes\": {\"1\": $n1b}}}" >"$TMP/leader-timeout.ndjson"
expect_exit 4 "an etcd leader's ElectionTimeout is refused with file:line and the reason" \
	'leader-timeout.ndjson:1: ElectionTimeout window in cell \(leader, ElectionTimeout\), which etcd declares impossible \(becomeCandidate panics on a leader' \
	"$CAPTURE" audit --system etcd "$TMP/leader-timeout.ndjson"

# The fold's own audit refuses it too, and the corpus is not written: an
# upstream trace whose leader (node 2, term 2) times out into a candidacy.
head -n 106 "$REF/etcd-with-tla/example.ndjson" >"$TMP/leader-candidacy.ndjson"
echo '{"name":"BecomeCandidate","nid":"2","state":{"term":3,"vote":"2","commit":5},"role":"StateCandidate","log":6}' >>"$TMP/leader-candidacy.ndjson"
expect_exit 4 "a fold drawing a window in an impossible cell is refused, naming the window" \
	'etcd/leader-candidacy.ndjson:22: ElectionTimeout window in cell \(leader, ElectionTimeout\)' \
	"$CAPTURE" fold etcd "$TMP/leader-candidacy.ndjson" -o "$TMP/lc"
nothing_left "that fold wrote nothing" "$TMP/lc"

# The fourth status: a lock() by the holder that never returns (a real
# self-deadlock) is no window; the fold records the call in the manifest
# and the audit shows its cell as observed, never completing.
noted "$CAPTURE" fold spin "$TESTS_DIR/audit/self-deadlock.log" -o "$TMP/selfd" >/dev/null ||
	not_ok "fold a run that ends in a self-deadlock" "$(why)"
expect "the call that never returned is in the manifest, and makes no window" \
	'r["runs"][0]["info"]["never_completing"] == [{"action": "AcquireLock", "data": {"thread": 0, "callType": "lock"}, "pre_state": {"lockHeld": True, "lockHolder": 0}}] and r["runs"][0]["windows"] == {"AcquireLock": 2}' "$TMP/selfd/MANIFEST.json"
expect "audit.json: one call never completing, its cell (held by 0, AcquireLock(0, lock)) observed" \
	'r["never_completing"] == 1 and r["windows"] == 2 and r["coverage"]["never_completing"] == [{"pre": "held by 0", "action": "AcquireLock(0, lock)", "calls": 1}] and ("held by 0", "AcquireLock(0, lock)") not in [(u["pre"], u["action"]) for u in r["coverage"]["uncovered"]] and r["coverage"]["covered"] == 2 and r["coverage"]["observed"] == 3 and r["coverage"]["reachable"] == 18' "$TMP/selfd/audit.json"
"$CAPTURE" audit --json "$TMP/selfd" >"$TMP/selfd.json"
expect "capture audit of that corpus reads the call back from its manifest, as audit.json has it" \
	"r['coverage'] == json.load(open('$TMP/selfd/audit.json'))['coverage'] and r['never_completing'] == 1" "$TMP/selfd.json"
"$CAPTURE" audit "$TMP/selfd" >"$TMP/selfd.txt"
grep -q '^observed, never completing: 1$' "$TMP/selfd.txt" &&
	grep -Eq '^  held by 0 +AcquireLock\(0, lock\) +1$' "$TMP/selfd.txt" &&
	grep -qF 'coverage: 3/18 reachable observed (2 covered by windows, 1 only never completing; 18 cells, 0 impossible)' "$TMP/selfd.txt" &&
	grep -q '^calls that never returned (no window): 1$' "$TMP/selfd.txt" &&
	ok "text: the never-completing cell and its calls, apart from coverage" ||
	not_ok "text: never completing" "$(sed -n '/^observed/,+2p' "$TMP/selfd.txt")"
"$CAPTURE" audit --svg "$TMP/selfd.svg" "$TMP/selfd" >/dev/null
[ "$(cells '#8e24aa' "$TMP/selfd.svg")/$(cells '#ffffff' "$TMP/selfd.svg")/$(cells '#43a047' "$TMP/selfd.svg")/$(cells '#ffca28' "$TMP/selfd.svg")" = 1/0/1/1 ] &&
	grep -q 'observed, never completing' "$TMP/selfd.svg" &&
	grep -qF 'spin: 3/18 reachable combinations observed (1 never completing; 0 impossible of 18)' "$TMP/selfd.svg" &&
	ok "SVG: the never-completing cell is drawn apart (1) and counted observed, 1 covered, 1 identity-only" ||
	not_ok "SVG never completing" "$(cells '#8e24aa' "$TMP/selfd.svg")/$(cells '#ffffff' "$TMP/selfd.svg")/$(cells '#43a047' "$TMP/selfd.svg")/$(cells '#ffca28' "$TMP/selfd.svg")"
cp -r "$TMP/selfd" "$TMP/selfd-bad"
python3 - "$TMP/selfd-bad/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
del m["runs"][0]["info"]["never_completing"][0]["pre_state"]
json.dump(m, open(sys.argv[1], "w"))
PY
expect_exit 3 "a manifest's never-completing call without its pre_state" \
	'selfd-bad/MANIFEST.json: run self-deadlock: a never-completing call needs' "$CAPTURE" audit "$TMP/selfd-bad"

# Bad input: file:line, exit code.
{ head -n 2 "$ref/spin/spin_seq.ndjson"; echo '{"action": "AcquireLock", "data": {}'; } >"$TMP/bad.ndjson"
expect_exit 3 "malformed window line" 'bad.ndjson:3:' "$CAPTURE" audit "$TMP/bad.ndjson"
sed '2s/"pre_state"/"pre"/' "$ref/spin/spin_seq.ndjson" >"$TMP/nopre.ndjson"
expect_exit 3 "event-form window without pre_state" 'nopre.ndjson:2: window lacks an object "pre_state"' "$CAPTURE" audit "$TMP/nopre.ndjson"
expect_exit 3 "missing input" 'nosuch: no such file' "$CAPTURE" audit "$TMP/nosuch"
# JSON whitespace after a record, a CR included, as the tokens reader
# allows it (ndjson_next() refused "}\r "; found by fuzzing).
sed 's/$/\r /' "$ref/spin/spin_seq.ndjson" >"$TMP/cr.ndjson"
"$CAPTURE" audit --json "$TMP/cr.ndjson" >"$TMP/cr.json" 2>"$TMP/cr.err" ||
	not_ok "a CR after each window" "$(cat "$TMP/cr.err")"
expect "a CR after each window: read as without" 'r["windows"] > 0' "$TMP/cr.json"
# Numbers that are no integer are no locksvc client: no column of theirs
# (1e100 became one through an undefined conversion; found by fuzzing).
noted "$CAPTURE" audit --json "$ROOT/tests/fuzz/corpus/audit/locksvc-huge-client.ndjson" \
	>"$TMP/huge.json" || not_ok "audit of huge client ids" "$(why)"
expect "locksvc: only integers are clients (12 x 4 x 1 client)" \
	'r["coverage"]["total"] == 48' "$TMP/huge.json"
mkdir -p "$TMP/empty"
expect_exit 3 "directory without windows" 'empty: no MANIFEST.json and no' "$CAPTURE" audit "$TMP/empty"
expect_exit 2 "--system contradicting the manifest" 'system' "$CAPTURE" audit --system locksvc "$TMP/corpus"
expect_exit 2 "two systems at once" 'one system at a time' "$CAPTURE" audit "$TMP/corpus" "$ref/locksvc"
expect_exit 2 "no input" '' "$CAPTURE" audit
# A run's name becomes the path of its window file: never outside the corpus.
cp -r "$TMP/corpus" "$TMP/escape"
mkdir -p "$TMP/spin"
cp "$TMP/corpus/spin/contention.ndjson" "$TMP/spin/stolen.ndjson"
sed -i 's|"name": "contention"|"name": "../../spin/stolen"|; s|"spin/contention.ndjson"|"spin/../../spin/stolen.ndjson"|' \
	"$TMP/escape/MANIFEST.json"
expect_exit 3 "a run named ../../spin/stolen: no file read outside the corpus" \
	"escape/MANIFEST.json: run '../../spin/stolen' names no file inside the corpus" \
	"$CAPTURE" audit "$TMP/escape"

# Inputs without a window: refused at the file, exit 3 -- once a
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
