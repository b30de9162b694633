# spin-task (docs/task-projections.md): capture spin's real events folded at the
# task's granularity, every target action with windows, the impossibility
# windows of its audit domain, each refused by the audit.
# needs: venv python3
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/impossible.sh"
here=$(cd "$(dirname "$0")" && pwd)
spin=$ROOT/tests/spin
PY=$ROOT/build/venv/bin/python
inputs=("$spin"/domain/*.ftrace "$spin/contention.ftrace" "$spin/block-2cpu.ftrace")
c=$TMP/task
"$CAPTURE" fold spin-task "${inputs[@]}" -o "$c" >/dev/null 2>"$TMP/err" ||
	not_ok "spin-task folds the captured traces" "$(tail -n 2 "$TMP/err")"

check "every canonical file, impossibility windows too, valid against the schema" \
	"$PY" "$here/validate.py" "$ROOT/tests/canonical-window.schema.json" \
	$(find "$c/spin-task" -name '*.ndjson' | sort)
check "one file per action, window_id from 1, trace_id the runs" \
	python3 "$here/check-files.py" "$c" spin-task
check "no harness gap; one window per event but StopSpinning; the spin phase and failed tries" \
	python3 "$here/spin-task-checks.py" "$c"

# The impossibility windows: each lies in a cell the domain declares
# impossible, so the audit refuses each one alone.
refused_each spin-task spin-task "$c"/spin-task/impossible/*.ndjson

# Back to the event form: what fold --form event writes.
"$CAPTURE" fold spin-task "${inputs[@]}" --form event -o "$TMP/event" >/dev/null 2>&1 &&
	"$CAPTURE" convert --form event "$c" "$TMP/back" 2>"$TMP/err" &&
	diff -r "$TMP/event/spin-task" "$TMP/back" >/dev/null &&
	ok "spin-task canonical back to the event form, byte for byte" ||
	not_ok "spin-task canonical back to the event form" "$(tail -n 2 "$TMP/err")"

# A third thread: the task's pc names threads 0 and 1 only, so it refuses.
sed 's/"thread":1,/"thread":2,/; s/"actor":1}/"actor":2}/' "$spin/contention.log" >"$TMP/three.log"
expect_exit 3 "a third thread is refused, not given a pc" \
	"three.log:[0-9]+: actor 2: spin-task's pc is over threads 0 to 1" \
	"$CAPTURE" fold spin-task "$TMP/three.log" -o "$TMP/three"

# --system is checked against the actions of every system, those that
# refine another included: spin-task's action files are not raftkvs's
# (nor spin's, whose actions they do not use), whatever command reads them.
for sys in raftkvs spin; do
	expect_exit 2 "audit --system $sys of spin-task's action files is refused" \
		"holds spin-task windows, not $sys \(--system\)" \
		"$CAPTURE" audit --system "$sys" "$c/spin-task"
done
expect_exit 2 "grade --system raftkvs of them is refused" \
	"holds spin-task windows, not raftkvs \(--system\)" \
	"$CAPTURE" grade --system raftkvs --exec 'cat >/dev/null' "$c/spin-task"
expect_exit 2 "convert --system raftkvs of them is refused" \
	"holds spin-task windows, not raftkvs \(--system\)" \
	"$CAPTURE" convert --system raftkvs "$c/spin-task" "$TMP/as-raftkvs"
nothing_left "a refused convert writes nothing" "$TMP/as-raftkvs"
check "without --system, the action names tell spin-task" \
	"$CAPTURE" audit "$c/spin-task"
