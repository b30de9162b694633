# --form itf: the spin, locksvc, dqueue, etcd and raftkvs folds of the reference
# inputs as ITF traces; itf-py (tests/requirements.txt, in build/venv) reads
# every trace written here and finds the event form's states, actions and
# data; convert takes each back to the event and stream forms byte for
# byte; audit, verify and grade read ITF; what ITF cannot carry is refused.
# needs: reference venv node
source "$(dirname "$0")/../lib.sh"
HERE=$ROOT/tests/itf
PY=$ROOT/build/venv/bin/python
pgo=$REF/pgo-traces

# SYSTEM INPUT...: fold in every form, into $TMP/SYSTEM-FORM
fold_all() {
	local sys=$1 form; shift
	for form in itf event stream; do
		"$CAPTURE" fold "$sys" "$@" --form $form -o "$TMP/$sys-$form" \
			2>"$TMP/fold.err" ||
			not_ok "fold $sys --form $form" "$(tail -n 2 "$TMP/fold.err")"
	done
}
fold_all spin "$ROOT/tests/spin/contention.log"
fold_all locksvc "$pgo"/locksvc/*
fold_all dqueue "$pgo"/dqueue/*
fold_all etcd "$REF/etcd-with-tla/example.ndjson"
fold_all raftkvs "$pgo"/raftkvs/*

if ! "$PY" -c 'import itf_py' 2>"$TMP/py.err"; then
	not_ok "itf-py in build/venv" "run make pydeps: $(tail -n 1 "$TMP/py.err")"
fi
n=0
for sys in spin locksvc dqueue etcd raftkvs; do
	for t in "$TMP/$sys-itf/$sys"/*.itf.json; do
		run=$(basename "$t" .itf.json)
		n=$((n + 1))
		check "itf-py reads $sys/$run as its event form" \
			"$PY" "$HERE/itf-states.py" "$t" "$TMP/$sys-event/$sys/$run.ndjson"
		for form in event stream; do
			noted "$CAPTURE" convert --force --form $form "$t" "$TMP/back.ndjson" &&
				same_bytes "convert $sys/$run itf -> $form = fold --form $form" \
					"$TMP/$sys-$form/$sys/$run.ndjson" "$TMP/back.ndjson" ||
				not_ok "convert $sys/$run itf -> $form" "$(why)"
		done
	done
done
[ "$n" = 15 ] && ok "15 ITF traces written (1 spin, 8 locksvc, 2 dqueue, 1 etcd, 3 raftkvs)" ||
	not_ok "ITF traces written" "$n, expected 15"
check "Quint-style trace (pretty-printed, None picks) read by itf-py" \
	"$PY" "$HERE/itf-states.py" "$HERE/quint-spin.itf.json" "$HERE/quint-spin.ndjson"
noted "$CAPTURE" convert "$HERE/quint-spin.itf.json" "$TMP/quint.ndjson" &&
	same_bytes "Quint-style trace converts to its windows" \
		"$HERE/quint-spin.ndjson" "$TMP/quint.ndjson" ||
	not_ok "Quint-style trace converts" "$(why)"

# The JSON styles: fold and convert agree, and restyling ITF round-trips.
t=$TMP/spin-itf/spin/contention.itf.json
for style in compact canonical; do
	noted "$CAPTURE" fold spin "$ROOT/tests/spin/contention.log" --form itf \
		--json $style -o "$TMP/spin-$style" &&
		noted "$CAPTURE" convert --force --form itf --json $style "$t" "$TMP/restyled.itf.json" &&
		same_bytes "convert = fold: itf form, $style JSON" \
			"$TMP/spin-$style/spin/contention.itf.json" "$TMP/restyled.itf.json" ||
		not_ok "convert = fold: itf form, $style JSON" "$(why)"
	noted "$CAPTURE" convert --force --form event --json $style "$TMP/restyled.itf.json" "$TMP/e.ndjson" &&
		noted "$CAPTURE" convert --force --form event --json $style \
			"$TMP/spin-event/spin/contention.ndjson" "$TMP/e-ref.ndjson" &&
		same_bytes "itf ($style) -> event ($style) = event -> event ($style)" \
			"$TMP/e-ref.ndjson" "$TMP/e.ndjson" ||
		not_ok "itf ($style) -> event" "$(why)"
done
t=$TMP/etcd-itf/etcd/example.itf.json
noted "$CAPTURE" convert --form itf --json compact "$t" "$TMP/c.itf.json" &&
	noted "$CAPTURE" convert --form itf "$TMP/c.itf.json" "$TMP/p.itf.json" &&
	same_bytes "itf -> compact itf -> itf keeps the bytes (and #meta)" "$t" "$TMP/p.itf.json" ||
	not_ok "itf restyle round trip" "$(why)"
# stream form -> ITF (system from the action names) -> stream form
s=$TMP/locksvc-stream/locksvc/1029352561734837753.ndjson
noted "$CAPTURE" convert --form itf "$s" "$TMP/l.itf.json" &&
	noted "$CAPTURE" convert --form stream "$TMP/l.itf.json" "$TMP/l.ndjson" &&
	same_bytes "stream -> itf -> stream" "$s" "$TMP/l.ndjson" ||
	not_ok "stream -> itf -> stream" "$(why)"
grep -q '"source": "'"$s"'", "run": "1029352561734837753"' "$TMP/l.itf.json" &&
	ok "convert names IN as the trace's source and run" ||
	not_ok "convert #meta" "$(head -c 300 "$TMP/l.itf.json")"
# a run that is only its initial state: one state, no window
head -n 1 "$s" >"$TMP/seed.ndjson"
noted "$CAPTURE" convert --form itf "$TMP/seed.ndjson" "$TMP/seed.itf.json" --system locksvc &&
	noted "$CAPTURE" convert --form stream "$TMP/seed.itf.json" "$TMP/seed2.ndjson" &&
	same_bytes "initial state only: one ITF state, back to the seed line" \
		"$TMP/seed.ndjson" "$TMP/seed2.ndjson" ||
	not_ok "initial state only" "$(why)"
grep -q '"states": \[{"#meta": {"index": 0}, "holder": {"tag": "None", "value": {"#tup": \[\]}}, "waiters": {"#set": \[\]}, "mbt::actionTaken": "init", "mbt::nondetPicks": {}}\]}' \
	"$TMP/seed.itf.json" && ok "state 0: init, no picks, declared set and option" ||
	not_ok "state 0" "$(cat "$TMP/seed.itf.json")"

# audit, verify and grade take ITF corpora as they take the others.
"$CAPTURE" audit "$TMP/locksvc-itf" | sed 's/\.itf\.json/.ndjson/' >"$TMP/audit-itf"
"$CAPTURE" audit "$TMP/locksvc-stream" >"$TMP/audit-stream"
sed -i "s#$TMP/locksvc-[a-z]*#CORPUS#" "$TMP/audit-itf" "$TMP/audit-stream"
same_bytes "audit of the ITF corpus = audit of the stream corpus" "$TMP/audit-stream" "$TMP/audit-itf"
check "verify an ITF corpus" "$CAPTURE" verify "$TMP/dqueue-itf"
for g in spin-next spin-noop-release; do
	for form in itf event; do
		"$CAPTURE" grade --exec "node $ROOT/tests/graders/$g.js" "$TMP/spin-$form" \
			>"$TMP/grade-$form" 2>&1
		echo "exit $?" >>"$TMP/grade-$form"
		sed -i "s#$TMP/spin-$form#CORPUS#; s/\.itf\.json/.ndjson/" "$TMP/grade-$form"
	done
	same_bytes "grade $g: ITF input scores as event input (state index = line)" \
		"$TMP/grade-event" "$TMP/grade-itf"
done
grep -q '^exit 4$' "$TMP/grade-itf" && grep -q 'contention.ndjson:3: ReleaseLock' "$TMP/grade-itf" &&
	ok "grade of ITF names a failed window by its state" || not_ok "grade failures" "$(tail -n 4 "$TMP/grade-itf")"

# What ITF cannot carry, or that is not ITF, is refused with exit 3.
e=$TMP/spin-event/spin/contention.ndjson
sed '3s/"state": {"lockHeld": true/"state": {"lockHeld": null/' \
	"$TMP/spin-stream/spin/contention.ndjson" >"$TMP/null.ndjson"
expect_exit 3 "null in a variable not declared an option" \
	'null.ndjson: state 2: no ITF form: lockHeld: null' \
	"$CAPTURE" convert --form itf "$TMP/null.ndjson" "$TMP/out.itf.json"
[ ! -e "$TMP/out.itf.json" ] && ok "nothing written on failure" ||
	not_ok "nothing written on failure" "$(ls "$TMP")"
sed '1s/"thread": 0,/"thread": 0.5,/' "$e" >"$TMP/frac.ndjson"
expect_exit 3 "a fraction has no ITF form" 'state 1: no ITF form: thread: 0.5 is not an integer' \
	"$CAPTURE" convert --form itf "$TMP/frac.ndjson" "$TMP/out.itf.json"
sed '3s/"pre_state": {"lockHeld": true, "lockHolder": 0}/"pre_state": {"lockHeld": true, "lockHolder": 1}/' \
	"$e" >"$TMP/unchained.ndjson"
expect_exit 3 "unchained event form refused" 'unchained.ndjson:3: pre_state is not the previous' \
	"$CAPTURE" convert --form itf "$TMP/unchained.ndjson" "$TMP/out.itf.json"
: >"$TMP/empty.ndjson"
expect_exit 3 "no windows, no initial state" 'empty.ndjson: no windows \(an empty file\)' \
	"$CAPTURE" convert --form itf --system spin "$TMP/empty.ndjson" "$TMP/out.itf.json"
sed 's/"AcquireLock"/"Foo"/g; s/"ReleaseLock"/"Bar"/g' "$e" >"$TMP/unknown.ndjson"
expect_exit 2 "ITF output needs the system" 'give --system' \
	"$CAPTURE" convert --form itf "$TMP/unknown.ndjson" "$TMP/out.itf.json"
expect_exit 2 "unknown --system" "unknown system 'nosuch'" \
	"$CAPTURE" convert --form itf --system nosuch "$e" "$TMP/out.itf.json"
t=$TMP/spin-itf/spin/contention.itf.json
sed 's/{"#bigint": "1"}/{"#bigint": "9007199254740993"}/' "$t" >"$TMP/big.itf.json"
expect_exit 3 "an integer no double holds" \
	'big.itf.json: state 2: #bigint 9007199254740993: a window.s numbers are doubles' \
	"$CAPTURE" convert "$TMP/big.itf.json" "$TMP/out.ndjson"
sed 's/{"#bigint": "1"}/{"#bigint": "9007199254740992000"}/' "$t" >"$TMP/big2.itf.json"
"$CAPTURE" convert "$TMP/big2.itf.json" - | sed -n 2p | grep -q '"thread": 9.007199254740992e+18' &&
	ok "#bigint beyond 2^53 that a double holds reads back" ||
	not_ok "#bigint beyond 2^53" "$("$CAPTURE" convert "$TMP/big2.itf.json" - 2>&1 | sed -n 2p)"
sed 's/"lockHeld": true, "lockHolder": {"tag": "Some", "value": {"#bigint": "1"}}, //' "$t" \
	>"$TMP/novar.itf.json"
expect_exit 3 "a state without a variable" 'novar.itf.json: state 4: lacks the variable lockHeld' \
	"$CAPTURE" convert "$TMP/novar.itf.json" "$TMP/out.ndjson"
sed 's/"callType": {"tag": "Some", "value": "try"}/"callType": "try"/' "$t" >"$TMP/pick.itf.json"
expect_exit 3 "a pick that is not an Option" 'state 2: pick callType is not an Option' \
	"$CAPTURE" convert "$TMP/pick.itf.json" "$TMP/out.ndjson"
sed 's/"tag": "None"/"tag": "Nothing"/' "$t" >"$TMP/variant.itf.json"
expect_exit 3 "a variant other than Option" 'state 0: variant "Nothing": only Quint.s Option' \
	"$CAPTURE" convert "$TMP/variant.itf.json" "$TMP/out.ndjson"
sed 's/"mbt::actionTaken": "ReleaseLock"/"mbt::actionTaken": 7/' "$t" >"$TMP/noaction.itf.json"
expect_exit 3 "a state without mbt::actionTaken" 'state 3: no string mbt::actionTaken' \
	"$CAPTURE" convert "$TMP/noaction.itf.json" "$TMP/out.ndjson"
head -c 300 "$t" >"$TMP/cut.itf.json"
expect_exit 3 "a truncated trace" 'cut.itf.json:1: not JSON' \
	"$CAPTURE" convert "$TMP/cut.itf.json" "$TMP/out.ndjson"
printf '{"vars": [], "states": []}\n' >"$TMP/nostates.itf.json"
expect_exit 3 "a trace without states" 'nostates.itf.json: not an ITF trace' \
	"$CAPTURE" grade --exec cat "$TMP/nostates.itf.json"
