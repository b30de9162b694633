# locksvc-task (docs/task-projections.md): PGo's recorded lock service at the
# task's granularity, the variables its recorder writes ({q, hasLock,
# pc}), checked against locksvc's {holder, waiters} of the same runs.
# needs: reference venv python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
PY=$ROOT/build/venv/bin/python
runs=("$REF"/pgo-traces/locksvc/*)
"$CAPTURE" fold locksvc-task "${runs[@]}" -o "$TMP/task" >/dev/null 2>"$TMP/err" ||
	not_ok "locksvc-task folds the recordings" "$(tail -n 2 "$TMP/err")"
"$CAPTURE" fold locksvc "${runs[@]}" --form event -o "$TMP/ref" >/dev/null 2>"$TMP/err" ||
	not_ok "locksvc folds the recordings" "$(tail -n 2 "$TMP/err")"

check "every canonical file valid against the schema" \
	"$PY" "$here/validate.py" "$ROOT/tests/canonical-window.schema.json" \
	$(find "$TMP/task/locksvc-task" -name '*.ndjson' | sort)
check "one file per action, window_id from 1, trace_id the runs" \
	python3 "$here/check-files.py" "$TMP/task" locksvc-task
check "no harness gap; each step its own; locksvc's windows and state" \
	python3 "$here/locksvc-task-checks.py" "$TMP/task" "$TMP/ref"

# A client step whose label is not its pc: the recording contradicts
# itself, which is refused.
mkdir "$TMP/bad"
cp "${runs[0]}"/* "$TMP/bad/"
f=$(grep -l '"archetypeName":"AClient"' "$TMP/bad"/* | head -n 1)
python3 - "$f" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    r = json.loads(l)
    if not r["isAbort"]:
        for e in r["csElements"]:
            if e["name"]["name"] == ".pc" and e["tag"] == "write":
                e["oldValue"] = '"AClient.unlock"'
        lines[i] = json.dumps(r, separators=(",", ":"))
        break
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect_exit 4 "a client step whose label is not its pc is refused" \
	"client [0-9]+ executes AClient.unlock, but its pc is acquireLock" \
	"$CAPTURE" fold locksvc-task "$TMP/bad" -o "$TMP/badout"
