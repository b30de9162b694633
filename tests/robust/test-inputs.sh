# Inputs that are not regular files: a
# pipe, a FIFO or "-" is read once, into a temporary copy that the fold and
# the input digest both read; a FIFO without a writer can still be stopped;
# a device is refused at once instead of being read forever.
# needs: reference python3
source "$(dirname "$0")/../lib.sh"
log=$ROOT/tests/spin/contention.log
ref=$REF/sysmobench-corpora/spin
want=$(sha256sum "$log" | cut -c1-64)
export TMPDIR=$TMP/tmpdir    # where the copies go: checked to be empty
mkdir -p "$TMPDIR"

# sha_of DIR: the first run's input_sha256 in DIR's manifest.
sha_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["input_sha256"])' \
		"$1/MANIFEST.json" 2>/dev/null
}

bad=0
for i in $(seq 20); do
	rm -rf "$TMP/pipe"
	rc=0
	"$CAPTURE" fold spin <(cat "$log") -o "$TMP/pipe" >/dev/null 2>"$TMP/pipe.err" || rc=$?
	if [ "$rc" != 0 ] || [ "$(sha_of "$TMP/pipe")" != "$want" ]; then
		bad="run $i: exit $rc, sha256 $(sha_of "$TMP/pipe"): $(tail -n 1 "$TMP/pipe.err")"
		break
	fi
done
[ "$bad" = 0 ] && ok "a pipe folds the same 20 times, with the input's sha256" ||
	not_ok "a pipe folds the same 20 times, with the input's sha256" "$bad"

rm -rf "$TMP/stdin"
if "$CAPTURE" fold spin - -o "$TMP/stdin" <"$log" >/dev/null 2>"$TMP/stdin.err"; then
	same_bytes "\"-\" reads standard input: run stdin" "$TMP/stdin/spin/stdin.ndjson" \
		"$ref/spin_2thread.ndjson"
	[ "$(sha_of "$TMP/stdin")" = "$want" ] && ok "\"-\": the input's sha256" ||
		not_ok "\"-\": the input's sha256" "$(sha_of "$TMP/stdin")"
else
	not_ok "\"-\" reads standard input" "$(tail -n 2 "$TMP/stdin.err")"
fi
head -n -1 "$log" >"$TMP/cut.log"
expect_exit 6 "\"-\": errors name \"-\" and the line" '^capture: -:14: ' \
	sh -c '"$1" fold spin - -o "$2" <"$3"' sh "$CAPTURE" "$TMP/cut" "$TMP/cut.log"

mkfifo "$TMP/fifo"
cat "$log" >"$TMP/fifo" &
expect_exit 0 "a FIFO with a writer folds" "" \
	timeout 20 "$CAPTURE" fold spin "$TMP/fifo" -o "$TMP/fifo-out"
wait

# A FIFO nobody writes: SIGTERM ends the run (it used to wait forever for
# the digest thread, blocked opening the FIFO).
env --default-signal=TERM "$CAPTURE" fold spin "$TMP/fifo" -o "$TMP/stuck" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -TERM "$pid"
for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then
	not_ok "SIGTERM stops a run blocked on a FIFO" "still running after 5 s"
	kill -KILL "$pid"
	wait "$pid"
else
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 143 ] && ok "SIGTERM stops a run blocked on a FIFO: exit 143" ||
		not_ok "SIGTERM stops a run blocked on a FIFO: exit 143" "exit $rc"
fi
nothing_left "SIGTERM on a FIFO: nothing left" "$TMP/stuck"
[ -z "$(ls -A "$TMPDIR")" ] && ok "no copy of an input is left" ||
	not_ok "no copy of an input is left" "$(ls -A "$TMPDIR")"

# A link to an endless device: refused at once (exit 3), not read forever.
ln -s /dev/zero "$TMP/zero.log"
expect_exit 3 "fold of a link to /dev/zero" 'zero.log: a device, not a recorded file' \
	timeout 20 "$CAPTURE" fold spin "$TMP/zero.log" -o "$TMP/zero"
nothing_left "fold of a link to /dev/zero: nothing left" "$TMP/zero"
expect_exit 3 "audit of a link to /dev/zero" 'zero.log: a device, not a recorded file' \
	timeout 20 "$CAPTURE" audit --system spin "$TMP/zero.log"

# A run directory holding a FIFO: refused, it would be read twice.
mkdir -p "$TMP/run"
cp "$(ls -d "$REF"/pgo-traces/locksvc/* | head -n 1)"/* "$TMP/run/"
mkfifo "$TMP/run/trace-zz.log"
expect_exit 3 "a FIFO in a run directory" 'trace-zz.log: not a regular file' \
	timeout 20 "$CAPTURE" fold locksvc "$TMP/run" -o "$TMP/run-out"
