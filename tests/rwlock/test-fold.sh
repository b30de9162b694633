# The rwlock folder on streams decoded from real guests (capture rwlock's
# raw/RUN.log: the contended scenario at two CPUs, the coverage one) and
# on hand-made streams that break one rule each; the contended run's trace
# channel (raw/RUN.ftrace) and edited copies of it.  The decoder's checks
# of a contention_begin outside a lock() call or of the wrong kind have no
# edited .ftrace here (they need records rewritten inside ring-buffer
# pages); the folder's check of contention outside a call is tested on a
# stream.
# needs: python3
source "$(dirname "$0")/../lib.sh"
here=$(dirname "$0")

# The windows of a file, one a line (tests/rwlock/summary.py).
summary() { python3 "$ROOT/tests/rwlock/summary.py" "$1"; }

if "$CAPTURE" fold rwlock "$here/contention-2cpu.log" -o "$TMP/c" >/dev/null 2>"$TMP/c.err"; then
	got=$(summary "$TMP/c/rwlock/contention-2cpu.ndjson" | tr '\n' ' ')
	want="ReadLock(0) r>r0 WriteTryLock(0) r0>r0 ReadUnlock(0) r0>r WriteLock(1) r>w1 ReadTryLock(1) w1>w1 WriteUnlock(1) w1>r ReadLock(0) r>r0 ReadLock(1) r0>r01 ReadUnlock(0) r01>r1 ReadUnlock(1) r1>r "
	[ "$got" = "$want" ] && ok "contended stream: the windows, the waiting locks' drawn after the unlock" ||
		not_ok "contended stream: the windows, the waiting locks' drawn after the unlock" "$got"
	grep -q '"contended_calls": 2' "$TMP/c/MANIFEST.json" &&
		ok "contended stream: two calls waited (the kernel's contention_begin/end)" ||
		not_ok "contended stream: two calls waited" "$(grep -A3 '"info"' "$TMP/c/MANIFEST.json")"
	n=$(grep -c '"event":"contention_' "$TMP/c/events/contention-2cpu.ndjson")
	[ "$n" = 4 ] && ok "contended stream: four contention events kept in events/" ||
		not_ok "contended stream: four contention events kept in events/" "$n"
else
	not_ok "contended stream folds" "$(tail -n 2 "$TMP/c.err")"
fi

check "coverage stream folds" "$CAPTURE" fold rwlock "$here/coverage.log" -o "$TMP/v"
"$CAPTURE" audit "$TMP/c" "$TMP/v" >"$TMP/audit.txt" 2>&1
grep -qF 'coverage: 32/32 reachable observed (32 covered by windows, 0 only never completing; 72 cells, 40 impossible)' "$TMP/audit.txt" &&
	ok "audit: both streams cover all 32 reachable cells of 72" ||
	not_ok "audit: both streams cover all 32 reachable cells of 72" "$(head -n 3 "$TMP/audit.txt")"

# ITF and back: the same windows byte for byte.
check "ITF form" "$CAPTURE" fold rwlock "$here/contention-2cpu.log" --form itf -o "$TMP/i"
"$CAPTURE" convert --form event "$TMP/i/rwlock/contention-2cpu.itf.json" "$TMP/back.ndjson" 2>/dev/null
same_bytes "ITF converts back to the event form" "$TMP/back.ndjson" "$TMP/c/rwlock/contention-2cpu.ndjson"
grep -q '"readers": *{ *"#set"' "$TMP/i/rwlock/contention-2cpu.itf.json" &&
	ok "ITF: readers is a #set" || not_ok "ITF: readers is a #set" "$(head -c 300 "$TMP/i/rwlock/contention-2cpu.itf.json")"

# stream LINES...: a stream of the given event lines (seq numbered here).
stream() {
	local out=$1; shift
	{
		echo "CAPTURE BEGIN hand"
		local k=0
		for e in "$@"; do
			set -- $e
			if [ "$3" = return ]; then
				echo "{\"seq\":$k,\"thread\":$1,\"op\":\"$2\",\"event\":\"return\",\"ok\":${4:-true}}"
			else
				echo "{\"seq\":$k,\"thread\":$1,\"op\":\"$2\",\"event\":\"$3\"}"
			fi
			k=$((k + 1))
		done
		echo "CAPTURE END $k"
	} >"$out"
}
fails() { # CODE NAME PATTERN FILE
	rm -rf "$TMP/bad" "$TMP"/bad.tmp-*
	expect_exit "$1" "$2" "$3" "$CAPTURE" fold rwlock "$4" -o "$TMP/bad"
	nothing_left "$2: nothing written" "$TMP/bad"
}
stream "$TMP/nocont.log" "0 read_lock call" "0 read_lock return" "1 write_lock call" \
	"0 read_unlock call" "0 read_unlock return" "1 write_lock return"
fails 4 "a write_lock that found a reader, without the kernel's contention" \
	'nocont.log:7: write_lock by thread 1: it found the lock held but the kernel reported no contention' "$TMP/nocont.log"
stream "$TMP/tryfree.log" "0 read_trylock call" "0 read_trylock return false"
fails 4 "a read_trylock failing on a free lock" \
	'tryfree.log:3: read_trylock by thread 0: failed on a lock nothing holds' "$TMP/tryfree.log"
stream "$TMP/rec.log" "0 read_lock call" "0 read_lock return" "0 read_trylock call" "0 read_trylock return"
fails 4 "a recursive read lock" 'rec.log:5: .*the state is a set' "$TMP/rec.log"
stream "$TMP/notholder.log" "0 read_lock call" "0 read_lock return" "1 read_unlock call" "1 read_unlock return"
fails 4 "an unlock by a thread not holding the lock" \
	'notholder.log:5: read_unlock by thread 1: the thread does not hold a read lock' "$TMP/notholder.log"
stream "$TMP/both.log" "0 write_lock call" "0 write_lock return" "1 read_lock call" \
	"1 read_lock contention_begin" "1 read_lock contention_end" "1 read_lock return"
fails 4 "a read_lock returning while another thread writes" \
	'both.log:7: read_lock by thread 1: the lock is held against it' "$TMP/both.log"
stream "$TMP/outside.log" "0 read_trylock call" "0 read_trylock contention_begin"
fails 4 "contention outside a lock() call" 'outside.log:3: .*contention outside' "$TMP/outside.log"
stream "$TMP/gap.log" "0 read_lock call" "0 read_lock return"
sed -i 's/"seq":1/"seq":2/' "$TMP/gap.log"
fails 6 "a seq gap: events were lost" 'gap.log:3: seq 2 where 1 was due' "$TMP/gap.log"
head -n 2 "$TMP/nocont.log" >"$TMP/cut.log"
fails 6 "a stream cut short" 'cut.log:2: stream ends without the CAPTURE END marker' "$TMP/cut.log"
stream "$TMP/badop.log" "0 read_lock call"
sed -i 's/read_lock/read_lick/' "$TMP/badop.log"
fails 3 "an unknown op" 'badop.log:2: expected a thread 0 or 1, an op' "$TMP/badop.log"
stream "$TMP/open.log" "0 read_lock call" "0 read_lock return" "1 write_lock call"
fails 4 "a write_lock never returning for no reason" \
	'open.log:5: write_lock by thread 1: the call never returned' "$TMP/open.log"

# A write_lock by the reader itself can never return: no window, a call
# observed never completing (manifest and audit).
stream "$TMP/self.log" "0 read_lock call" "0 read_lock return" "0 write_lock call"
if "$CAPTURE" fold rwlock "$TMP/self.log" -o "$TMP/s" >/dev/null 2>"$TMP/s.err"; then
	grep -q '"action": "WriteLock"' "$TMP/s/MANIFEST.json" &&
		grep -q never_completing "$TMP/s/MANIFEST.json" &&
		ok "a reader's own write_lock: a call never completing" ||
		not_ok "a reader's own write_lock: a call never completing" "$(grep -A6 never "$TMP/s/MANIFEST.json")"
	"$CAPTURE" audit "$TMP/s" 2>&1 | grep -q 'never completing' &&
		ok "audit shows the call never completing" ||
		not_ok "audit shows the call never completing" "$("$CAPTURE" audit "$TMP/s" 2>&1 | tail -n 4)"
else
	not_ok "a reader's own write_lock folds" "$(tail -n 2 "$TMP/s.err")"
fi

# The trace channel the contended stream was decoded from (raw/RUN.ftrace
# of the same capture), folded again: the same events and windows.
if "$CAPTURE" fold rwlock "$here/contention-2cpu.ftrace" -o "$TMP/f" >/dev/null 2>"$TMP/f.err"; then
	same_bytes "kept trace channel: the windows of its decoded stream" \
		"$TMP/f/rwlock/contention-2cpu.ndjson" "$TMP/c/rwlock/contention-2cpu.ndjson"
	same_bytes "kept trace channel: the events of its decoded stream" \
		"$TMP/f/events/contention-2cpu.ndjson" "$TMP/c/events/contention-2cpu.ndjson"
	for k in '"cpus": 2' '"contention_begin": 2' '"contention_end": 2'; do
		grep -q "$k" "$TMP/f/MANIFEST.json" && ok "kept trace channel: manifest says $k" ||
			not_ok "kept trace channel: manifest says $k" "$(grep -A5 '"trace"' "$TMP/f/MANIFEST.json")"
	done
else
	not_ok "kept trace channel folds" "$(tail -n 2 "$TMP/f.err")"
fi
head -c 9000 "$here/contention-2cpu.ftrace" >"$TMP/cut.ftrace"
fails 6 "a trace channel cut short" 'cut.ftrace: .*events were lost' "$TMP/cut.ftrace"
# The kernel's contention events renamed in their format files: their
# records are no longer the kernel's contention.  Without contention_begin
# the decoding finds an end without a begin; without both, the folder
# finds the writer's wait without the kernel's evidence.
rename() { # OUT EVENT...
	python3 - "$here/contention-2cpu.ftrace" "$@" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
for e in sys.argv[3:]:
    new = data.replace(b'name: %s\n' % e.encode(), b'name: %sx\n' % e[:-1].encode())
    assert new != data
    data = new
open(sys.argv[2], 'wb').write(data)
PY
}
rename "$TMP/nobegin.ftrace" contention_begin
fails 4 "contention_end without the kernel's contention_begin" \
	'nobegin.ftrace: cpu[01]: lock:contention_end without its contention_begin' "$TMP/nobegin.ftrace"
rename "$TMP/nocont.ftrace" contention_begin contention_end
fails 4 "a wait without the kernel's contention" \
	'nocont.ftrace:[0-9]+: write_lock by thread 1: it found the lock held but the kernel reported no contention' \
	"$TMP/nocont.ftrace"
# One CPU's ring buffer lost: its operations are missing.
python3 - "$here/contention-2cpu.ftrace" "$TMP/nocpu1.ftrace" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
head = b'FILE per_cpu/cpu1/trace_pipe_raw '
i = data.index(head)
n = int(data[i + len(head):data.index(b'\n', i)])
j = data.index(b'\n', i) + 1
open(sys.argv[2], 'wb').write(data[:i] + head + b'0\n' + data[j + n:])
PY
fails 6 "a CPU's buffer lost" 'nocpu1.ftrace: .*events were lost' "$TMP/nocpu1.ftrace"
