# The spin guest's trace channel (raw/RUN.ftrace: ftrace ring-buffer pages
# and formats, as capture spin keeps them) decoded with libtraceevent and
# folded, on channels recorded from real guests: the reference windows,
# StopSpinning where the slow path ran, lost events caught with counts.
# needs: reference python3
source "$(dirname "$0")/../lib.sh"
here=$(dirname "$0")
ref=$REF/sysmobench-corpora/spin

# fold NAME FILE: fold FILE into $TMP/NAME.
fold() { "$CAPTURE" fold spin "$2" -o "$TMP/$1" >/dev/null 2>"$TMP/$1.err"; }

# Contention at one CPU (Debian's kernel under QEMU TCG, capture spin).
if fold c1 "$here/contention.ftrace"; then
	same_bytes "contention trace: the reference windows" \
		"$TMP/c1/spin/contention.ndjson" "$ref/spin_2thread.ndjson"
	same_bytes "contention trace: the events of the JSON channel" \
		"$TMP/c1/events/contention.ndjson" \
		<("$CAPTURE" fold spin "$here/contention.log" -o "$TMP/c1j" >/dev/null &&
		  cat "$TMP/c1j/events/contention.ndjson")
else
	not_ok "contention trace folds" "$(tail -n 2 "$TMP/c1.err")"
fi
fold c1b "$here/contention.ftrace" &&
	diff -r "$TMP/c1" "$TMP/c1b" >"$TMP/diff" &&
	ok "re-folding the same trace: the same corpus" ||
	not_ok "re-folding the same trace: the same corpus" "$(head -n 5 "$TMP/diff")"
grep -q '"slowpath_entries": 0' "$TMP/c1/MANIFEST.json" &&
	ok "contention trace: no slow path at one CPU" ||
	not_ok "contention trace: no slow path at one CPU" "$(grep -A9 '"trace"' "$TMP/c1/MANIFEST.json")"

# A blocking lock at two CPUs: actor 1 spins in the kernel's slow path
# (the kretprobe saw it enter and leave) until actor 0's release.
if fold b2 "$here/block-2cpu.ftrace"; then
	got=$(grep -o '"action":"[A-Za-z]*","actor":[01]' "$TMP/b2/events/block-2cpu.ndjson" |
		sed 's/"action":"\([A-Za-z]*\)","actor":\(.\)/\2\1/' | tr '\n' ' ')
	want="0TryAcquireBlocking 0AcquireSuccess 1TryAcquireBlocking 0TryAcquireNonBlocking 0AcquireFail 0Release 1StopSpinning 1AcquireSuccess 0TryAcquireNonBlocking 0AcquireFail 1Release "
	[ "$got" = "$want" ] && ok "blocking trace: StopSpinning exactly where the slow path ran" ||
		not_ok "blocking trace: StopSpinning exactly where the slow path ran" "$got"
	for k in '"slowpath_entries": 1' '"slowpath_exits": 1' '"stop_spinning": 1' \
		 '"cpus": 2' '"hypervisor": true' '"paravirt_slowpath": false'; do
		grep -q "$k" "$TMP/b2/MANIFEST.json" && ok "blocking trace: manifest says $k" ||
			not_ok "blocking trace: manifest says $k" "$(grep -A9 '"trace"' "$TMP/b2/MANIFEST.json")"
	done
else
	not_ok "blocking trace folds" "$(tail -n 2 "$TMP/b2.err")"
fi

fails() { # CODE NAME PATTERN FILE
	rm -rf "$TMP/bad" "$TMP"/bad.tmp-*
	expect_exit "$1" "$2" "$3" "$CAPTURE" fold spin "$4" -o "$TMP/bad"
	nothing_left "$2: nothing written" "$TMP/bad"
}
# A 700-step scenario into a 4 KiB buffer: the kernel overwrote pages.
fails 6 "overrun ring buffer: lost events with counts" \
	'overrun.ftrace: cpu0: the ring buffer lost events: overrun [1-9][0-9]*' "$here/overrun.ftrace"
# The same with its stats edited to say nothing was lost: the pages
# themselves carry the kernel's missed-events flag (kbuffer).
python3 - "$here/overrun.ftrace" "$TMP/flagged.ftrace" <<'PY'
import re, sys
data = open(sys.argv[1], 'rb').read()
out = re.sub(rb'\noverrun: (\d+)\n', lambda m: b'\noverrun: ' + b'0' * len(m.group(1)) + b'\n', data)
assert out != data
open(sys.argv[2], 'wb').write(out)
PY
fails 6 "pages marked as having missed events" 'flagged.ftrace: cpu0: the ring buffer missed [0-9]+ events' \
	"$TMP/flagged.ftrace"
head -c 9000 "$here/block-2cpu.ftrace" >"$TMP/cut.ftrace"
fails 6 "a trace channel cut short" 'cut.ftrace: .*events were lost' "$TMP/cut.ftrace"
# A whole CPU's buffer lost: cpu1 held the framing events (the insmod
# ran there), cpu0 actor 0's operations.
drop_cpu() { # CPU OUT
	python3 - "$here/block-2cpu.ftrace" "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
head = b'FILE per_cpu/cpu%s/trace_pipe_raw ' % sys.argv[2].encode()
i = data.index(head)
n = int(data[i + len(head):data.index(b'\n', i)])
j = data.index(b'\n', i) + 1
open(sys.argv[3], 'wb').write(data[:i] + head + b'0\n' + data[j + n:])
PY
}
drop_cpu 1 "$TMP/nocpu1.ftrace"
fails 6 "the framing events missing" 'nocpu1.ftrace: no capture_spin:spin_begin event in the trace: events were lost' \
	"$TMP/nocpu1.ftrace"
drop_cpu 0 "$TMP/nocpu0.ftrace"
fails 6 "one CPU's operations missing" 'nocpu0.ftrace: spin_end counted 10 events, 7 of them are not in the trace' \
	"$TMP/nocpu0.ftrace"

# StopSpinning in a stream: the lock is held by the spinner, and only
# after the holder's release.
spun() { # FILE STATE: a stream where 1 spins until 0 releases
	{
		echo 'CAPTURE BEGIN spun'
		n=0
		for e in 0:unlocked:TryAcquireBlocking 0:locked:AcquireSuccess \
			 1:locked:TryAcquireBlocking 0:unlocked:Release "1:$2:StopSpinning" \
			 1:locked:AcquireSuccess 1:unlocked:Release; do
			IFS=: read -r a st act <<<"$e"
			printf '{"seq":%d,"thread":%d,"lock":0,"state":"%s","action":"%s","actor":%d}\n' \
				$n "$a" "$st" "$act" "$a"
			n=$((n + 1))
		done
		echo "CAPTURE END $n"
	} >"$1"
}
spun "$TMP/spun.log" locked
if fold spun "$TMP/spun.log"; then
	grep -q '"action":"StopSpinning","actor":1' "$TMP/spun/events/spun.ndjson" &&
		ok "StopSpinning (lock held by the spinner) folds" ||
		not_ok "StopSpinning (lock held by the spinner) folds" "$(cat "$TMP/spun/events/spun.ndjson")"
else
	not_ok "StopSpinning (lock held by the spinner) folds" "$(tail -n 2 "$TMP/spun.err")"
fi
spun "$TMP/free.log" unlocked
fails 4 "StopSpinning reporting the lock free" 'free.log:6: StopSpinning by actor 1 reports the lock free' "$TMP/free.log"
# Its StopSpinning moved before 0's release: it stopped on a held lock.
awk 'NR == 5 { held = $0; next } NR == 6 { print; print held; next } { print }' "$TMP/spun.log" |
	awk '/"seq":/ { sub(/"seq":[0-9]+/, "\"seq\":" n++) } { print }' >"$TMP/held.log"
fails 4 "StopSpinning while the lock is still held" 'held.log:5: StopSpinning: actor 1 stopped spinning on a lock still held' "$TMP/held.log"

# libtraceevent evaluates the constant arithmetic of a print format as it
# parses one, and a division by zero there killed capture with SIGFPE
# (found by tests/fuzz/fuzz-spin).  Only fields are read: a print format
# with a division by zero (same length) folds to the same windows.
python3 - "$here/contention.ftrace" "$TMP/div0.ftrace" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"REC->pv_slowpath") == 1
open(sys.argv[2], "wb").write(b.replace(b"REC->pv_slowpath", b"1/0 + 0/0 + 0/00"))
PY
if fold div0 "$TMP/div0.ftrace"; then
	same_bytes "a print format dividing by zero: the same windows" \
		"$TMP/div0/spin/div0.ndjson" "$ref/spin_2thread.ndjson"
else
	not_ok "a print format dividing by zero folds" "$(tail -n 2 "$TMP/div0.err")"
fi

# libtraceevent trusts the format text it parses (a corrupt field line made
# it follow a NULL pointer; found by tests/fuzz/fuzz-spin): a line no kernel
# writes is refused first, exit 3, naming the format file and its line.
python3 - "$here/contention.ftrace" "$TMP/badfield.ftrace" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
old = b"\tfield:unsigned int nsteps;\toffset:12;"
assert b.count(old) == 1
open(sys.argv[2], "wb").write(b.replace(old, b"\tfield:unsigned int nsteps;\toffs*t:12;"))
PY
expect_exit 3 "a field line no kernel writes is refused" \
	'events/capture_spin/spin_begin/format, line [0-9]+: not a line of an event format' \
	"$CAPTURE" fold spin "$TMP/badfield.ftrace" -o "$TMP/badfield"
nothing_left "a bad field line: nothing written" "$TMP/badfield"

# kbuffer believes a page's commit length (a corrupt one made it read past
# the page; found by tests/fuzz/fuzz-spin): one longer than the page is
# refused, exit 3.
python3 - "$here/contention.ftrace" "$TMP/badcommit.ftrace" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b"FILE per_cpu/cpu0/trace_pipe_raw ")
page = b.index(b"\n", at) + 1
b[page + 8:page + 16] = (4095).to_bytes(8, "little")
open(sys.argv[2], "wb").write(b)
PY
expect_exit 3 "a page whose commit runs past it is refused" 'cpu0: a page kbuffer cannot load' \
	"$CAPTURE" fold spin "$TMP/badcommit.ftrace" -o "$TMP/badcommit"
nothing_left "a bad page commit: nothing written" "$TMP/badcommit"
