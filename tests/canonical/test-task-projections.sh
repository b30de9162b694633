# The task projections of dqueue, raftkvs and rwlock (docs/task-projections.md):
# every file valid against the schema, one per action; each refines its
# system window for window on the same runs; the counts per action are
# what the raw input shows; what the projection cannot observe or the
# recording contradicts is refused.
# needs: reference venv python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
PY=$ROOT/build/venv/bin/python
rw=$ROOT/tests/rwlock
python3 "$ROOT/tests/raftkvs/gen-run.py" "$TMP/handlers" handlers
dq=("$REF"/pgo-traces/dqueue/*)
rk=("$REF"/pgo-traces/raftkvs/*/ "$TMP/handlers")
rl=("$rw/contention-2cpu.ftrace" "$rw/coverage.log")

# written_form DIR: the form of DIR's first window file, from its first
# line (window-read.c's detection): canonical, stream or event.
written_form() {
	local line
	line=$(head -n 1 "$(ls "$1"/*.ndjson | head -n 1)")
	case $line in
	'{"window_id"'*) echo canonical ;;
	'{"state"'*) echo stream ;;
	*) echo event ;;
	esac
}

# project SYSTEM INPUT...: SYSTEM-task's corpus in $TMP/SYSTEM-task (and
# its raw events), SYSTEM's in event form in $TMP/SYSTEM; the checks.
project() {
	local sys=$1 t=$TMP/$1-task; shift
	if ! "$CAPTURE" fold "$sys-task" "$@" -o "$t" >/dev/null 2>"$TMP/err" ||
	   ! "$CAPTURE" fold "$sys" "$@" --form event -o "$TMP/$sys" >/dev/null 2>>"$TMP/err"; then
		not_ok "$sys-task: folds" "$(tail -n 2 "$TMP/err")"
		return
	fi
	check "$sys-task: every file valid against the JSON Schema" \
		"$PY" "$here/validate.py" "$ROOT/tests/canonical-window.schema.json" \
		$(find "$t/$sys-task" -name '*.ndjson' | sort)
	check "$sys-task: one file per action, window_id from 1, trace_id the runs" \
		python3 "$here/check-files.py" "$t" "$sys-task"
	# capture list's window form: the form this fold (its default) wrote
	local said
	said=$("$CAPTURE" list | sed -n "/^$sys-task:/,/^[^ ]/s/^  window form: //p")
	[ "$said" = "$(written_form "$t/$sys-task")" ] &&
		ok "$sys-task: capture list says the form its fold writes" ||
		not_ok "$sys-task: capture list says the form its fold writes" \
			"list: $said; written: $(written_form "$t/$sys-task")"
	check "$sys-task: refines $sys, window for window" \
		python3 "$here/task-refines.py" "$sys" "$t" "$TMP/$sys"
	check "$sys-task: windows per action as the raw input shows" \
		python3 "$here/task-counts.py" "$sys-task" "$t" "$@"
	"$CAPTURE" fold "$sys-task" "$@" -o "$t-again" >/dev/null 2>&1 &&
		diff -r "$t" "$t-again" >"$TMP/diff" &&
		ok "$sys-task: folding twice is byte-identical" ||
		not_ok "$sys-task: folding twice is byte-identical" "$(head -n 3 "$TMP/diff")"
}
project dqueue "${dq[@]}"
project raftkvs "${rk[@]}"
project rwlock "${rl[@]}"

# no harness gap: every target action has windows, but raftkvs's vote
# response (the shared runs are one server each, gen-run.py's handlers
# run answers no vote: docs/task-projections.md)
gaps=
for sys in dqueue rwlock raftkvs; do
	for a in $("$CAPTURE" list | sed -n "/^$sys-task:/{n;s/^  actions: //p}"); do
		[ "$sys/$a" = raftkvs/HandleVoteResponse ] && continue
		[ -s "$TMP/$sys-task/$sys-task/$a.ndjson" ] || gaps="$gaps $sys-task/$a"
	done
done
[ -z "$gaps" ] && ok "every target action has windows (but raftkvs-task's HandleVoteResponse)" ||
	not_ok "every target action has windows" "no windows:$gaps"

# A consumer that receives a value its channel does not hold first: the
# recording contradicts its FIFO network.
mkdir "$TMP/bad"
cp "${dq[0]}"/* "$TMP/bad/"
sed -i '0,/"read","value":"1"},{"indices":\[\],"name":{"name":"proc"/s//"read","value":"7"},{"indices":[],"name":{"name":"proc"/' \
	"$TMP/bad"/trace-1-*.log
expect_exit 4 "dqueue-task: a receive of what is not its channel's head is refused" \
	"AConsumer 1 receives 7 from net\[1\], whose head is another value" \
	"$CAPTURE" fold dqueue-task "$TMP/bad" -o "$TMP/badout"
[ ! -e "$TMP/badout" ] && ok "dqueue-task: a refused run leaves no corpus" ||
	not_ok "dqueue-task: a refused run leaves no corpus" "$TMP/badout exists"

# A log whose entries carry no term: logLastTerm would be invented.
cp -r "$TMP/handlers" "$TMP/noterm"
sed -i 's/(\\"term\\") :> (2) @@ //g' "$TMP/noterm"/trace-*.log
expect_exit 3 "raftkvs-task: a log entry without a term is refused" \
	"raftkvs-task: the last entry of the log AServer 1 writes has no term" \
	"$CAPTURE" fold raftkvs-task "$TMP/noterm" -o "$TMP/noterm-out"
check "raftkvs folds the same run (it reads no entry's term)" \
	"$CAPTURE" check raftkvs "$TMP/noterm"
