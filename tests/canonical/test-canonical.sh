# The canonical form (docs/canonical.md): one file per action, every run's
# windows in it, converted back to each system's own form byte for byte.
# needs: reference venv python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
spin=$ROOT/tests/spin
PY=$ROOT/build/venv/bin/python
schema=$ROOT/tests/canonical-window.schema.json

# valid NAME CORPUS SYSTEM: every canonical file the corpus holds (its
# windows and its impossibility windows) is valid against the schema.
valid() {
	check "$1" "$PY" "$here/validate.py" "$schema" \
		$(find "$2/$3" -name '*.ndjson' | sort)
}
rw=$ROOT/tests/rwlock

# roundtrip SYSTEM FORM INPUT...: fold canonical and in FORM; convert the
# canonical corpus back to FORM: every run's file the same bytes.
roundtrip() {
	local sys=$1 form=$2; shift 2
	local c=$TMP/$sys-canon e=$TMP/$sys-$form b=$TMP/$sys-back f bad=
	if ! "$CAPTURE" fold "$sys" "$@" --form canonical -o "$c" >/dev/null 2>"$TMP/err" ||
	   ! "$CAPTURE" fold "$sys" "$@" --form "$form" -o "$e" >/dev/null 2>>"$TMP/err" ||
	   ! "$CAPTURE" convert --form "$form" "$c" "$b" 2>>"$TMP/err"; then
		not_ok "$sys: canonical back to $form" "$(tail -n 2 "$TMP/err")"
		return
	fi
	for f in "$e/$sys"/*; do
		cmp -s "$f" "$b/$(basename "$f")" || bad="$bad $(basename "$f")"
	done
	[ "$(ls "$e/$sys" | wc -l)" = "$(ls "$b" | wc -l)" ] || bad="$bad (run count)"
	[ -z "$bad" ] && ok "$sys: canonical back to $form, byte for byte" ||
		not_ok "$sys: canonical back to $form, byte for byte" "differ:$bad"
	check "$sys: one file per action, window_id from 1, trace_id the runs" \
		python3 "$here/check-files.py" "$c" "$sys"
	valid "$sys: every canonical file valid against the JSON Schema" "$c" "$sys"
}

roundtrip spin event "$spin"/domain/*.ftrace "$spin/contention.log"
roundtrip spin-spinning event "$spin"/domain/*.ftrace
roundtrip rwlock event "$rw/contention-2cpu.ftrace" "$rw/coverage.log"
roundtrip etcd stream "$REF/etcd-with-tla/example.ndjson"
roundtrip locksvc stream "$REF"/pgo-traces/locksvc/*
roundtrip dqueue stream "$REF"/pgo-traces/dqueue/*

# rwlock's domain draws the cells its lock forbids as impossibility
# windows; the audit refuses each one alone.
n=0 refused=0
for f in "$TMP"/rwlock-canon/rwlock/impossible/*.ndjson; do
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s\n' "$line" >"$TMP/one.ndjson"
		rc=0
		"$CAPTURE" audit --system rwlock "$TMP/one.ndjson" >/dev/null 2>&1 || rc=$?
		[ "$rc" = 4 ] && refused=$((refused + 1))
	done <"$f"
done
[ "$n" -gt 0 ] && [ "$refused" = "$n" ] &&
	ok "rwlock: the audit refuses each of its $n impossibility windows" ||
	not_ok "rwlock: the audit refuses each impossibility window" "$refused of $n refused"
grep -h -o '"impossible": "[^"]*"' "$TMP"/rwlock-canon/rwlock/impossible/*.ndjson |
	grep -q 'module and the folder refuse' &&
	not_ok "rwlock: no impossibility window of a cell only the module refuses" "one found" ||
	ok "rwlock: no impossibility window of a cell only the module refuses"

# spin-spinning's domain draws the cells the lock forbids a spinner (10:
# its lock() returning on a held lock, its try or release inside its
# lock()); the module's choices and the states never reached draw none.
source "$here/impossible.sh"
imp=("$TMP"/spin-spinning-canon/spin-spinning/impossible/*.ndjson)
refused_each spin-spinning spin-spinning "${imp[@]}"
[ "$(cat "${imp[@]}" | wc -l)" = 10 ] &&
	ok "spin-spinning: 10 impossibility windows, 5 cells a thread" ||
	not_ok "spin-spinning: 10 impossibility windows" "$(cat "${imp[@]}" | wc -l)"
grep -h -o '"impossible": "[^"]*"' "${imp[@]}" | grep -q -e module -e 'cannot both spin' -e 'self-deadlock' &&
	not_ok "spin-spinning: no impossibility window of a module's choice or an unreachable state" "one found" ||
	ok "spin-spinning: no impossibility window of a module's choice or an unreachable state"

# The audit reads a canonical corpus as it reads the run files.
cov() { "$CAPTURE" audit "$1" | grep '^coverage:'; }
[ "$(cov "$TMP/spin-canon")" = "$(cov "$TMP/spin-event")" ] &&
	ok "audit: the canonical corpus covers what the event corpus does" ||
	not_ok "audit: the canonical corpus covers what the event corpus does" \
		"$(cov "$TMP/spin-canon") vs $(cov "$TMP/spin-event")"

# One window's record, converted to canonical and back.
"$CAPTURE" convert --form canonical "$REF/sysmobench-corpora/spin/spin_seq.ndjson" \
	"$TMP/seq.canon.ndjson" 2>"$TMP/err" &&
	"$CAPTURE" convert "$TMP/seq.canon.ndjson" "$TMP/seq-back" 2>>"$TMP/err" &&
	same_bytes "a window file to canonical and back" "$TMP/seq-back/spin_seq.ndjson" \
		"$REF/sysmobench-corpora/spin/spin_seq.ndjson" ||
	not_ok "a window file to canonical and back" "$(tail -n 2 "$TMP/err")"

# A trace with a window missing is refused, naming where.
mkdir "$TMP/gap"
cp "$TMP/spin-canon/spin/ReleaseLock.ndjson" "$TMP/gap/"
grep -v '"trace_id": "01-free", "seq": 3,' "$TMP/spin-canon/spin/AcquireLock.ndjson" \
	>"$TMP/gap/AcquireLock.ndjson"
expect_exit 3 "a canonical trace with a gap is refused" \
	'ndjson:[0-9]+: trace 01-free: seq 4 where 3 was due' \
	"$CAPTURE" convert "$TMP/gap" "$TMP/gap-out"
nothing_left "a refused conversion writes nothing" "$TMP/gap-out"
# Every refusal of canonical input exits with capture's own code, whatever
# it held when it died (LeakSanitizer is on): a trace's first window
# missing, two inputs of which one is not canonical.
mkdir "$TMP/first"
sed '1s/"seq": 1,/"seq": 7,/' "$TMP/spin-canon/spin/AcquireLock.ndjson" >"$TMP/first/AcquireLock.ndjson"
expect_exit 3 "a canonical trace without its first window is refused" \
	'AcquireLock.ndjson:[0-9]+: trace 01-free: seq [0-9]+ where 1 was due' \
	"$CAPTURE" convert "$TMP/first" "$TMP/first-out"
cp "$TMP/spin-event/spin/01-free.ndjson" "$TMP/first/ZEvent.ndjson"
expect_exit 3 "canonical and event files together are refused" \
	'ZEvent.ndjson:1: not in the canonical form, as the other inputs are' \
	"$CAPTURE" convert "$TMP/first" "$TMP/first-out"
nothing_left "refused canonical input: nothing written" "$TMP/first-out"

# The schema refuses what is not a canonical window (its checks can fail).
sed '2s/"input": /"data": /' "$TMP/spin-canon/spin/AcquireLock.ndjson" >"$TMP/bad.ndjson"
expect_exit 1 "the schema refuses a window without input" 'bad.ndjson:2:' \
	"$PY" "$here/validate.py" "$schema" "$TMP/bad.ndjson"
sed '3s/"pre_state": {"lockHeld"/"pre_state": {"held"/' "$TMP/spin-canon/spin/AcquireLock.ndjson" >"$TMP/bad.ndjson"
expect_exit 1 "a window whose pre and post differ in variables is refused" \
	'bad.ndjson:3: pre_state and post_state differ' \
	"$PY" "$here/validate.py" "$schema" "$TMP/bad.ndjson"
