#!/bin/bash
# capture probe -p PID (docs/libraries.md, "A running process"): a ticker
# started before the capture (tests/probe/ticker.c), probed in its own
# function and in glibc's pthread_mutex_lock; while attached its code
# holds the breakpoints; SIGINT ends the capture with its corpus written
# and the ticks as logged, the process still running, not stopped or
# traced, its code as the file's again, the capture's BPF links gone;
# --seconds ends it too; a process's exit ends it; a pid that is no
# process is refused, as are -p with a command and --seconds without -p.
# needs: root btf python3 jq libc6-dbg
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/probe

gcc -O2 -g -pthread -o "$TMP/ticker" "$D/ticker.c"
# execed PID: wait until the shell's child PID runs the ticker ($! is the
# forked shell until its exec: probing it then would probe bash).
execed() {
	for _ in $(seq 1000); do
		[ "$(readlink /proc/"$1"/exe 2>/dev/null)" = "$TMP/ticker" ] && return 0
		sleep 0.01
	done
	return 1
}
"$TMP/ticker" >"$TMP/ticks.log" &
ticker=$!
execed $ticker
trap 'kill $ticker 2>/dev/null' EXIT

# byte_at PID SYMBOL: the first byte of SYMBOL's code in PID's memory, in hex.
byte_at() {
	python3 - "$1" "$2" "$TMP/ticker" <<'PY'
import subprocess, sys
pid, sym, exe = sys.argv[1:4]
value = next(int(l.split()[0], 16) for l in subprocess.run(["nm", exe], capture_output=True,
             text=True).stdout.splitlines() if l.split()[-1] == sym)
base = next(int(l.split("-")[0], 16) for l in open("/proc/%s/maps" % pid)
            if l.split()[-1].endswith("/ticker") and int(l.split()[2], 16) == 0)
with open("/proc/%s/mem" % pid, "rb") as m:
    m.seek(base + value)
    print(m.read(1).hex())
PY
}
# links PID: the BPF link ids process PID holds.
links() { grep -h '^link_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u; }

# the ticks captured against the log: Tick i, Lock 0, Ticked total(i)
# in turn, i one more each time.  libc's probes are armed before the
# ticker's and go after them (a lock before the first tick and after the
# last is libc's alone), and a link arms its sites one by one (a tick may
# be seen entering before its return is probed, and the other way round
# at the end): the first and last whole groups are where it starts and
# ends.
ticks_as_logged() {
	python3 - "$1" "$2" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
total = {int(l.split()[1]): int(l.split()[2]) for l in open(sys.argv[2])}
GROUP = ["Tick", "Lock", "Ticked"]
while len(ev) >= 3 and [e["event"] for e in ev[:3]] != GROUP:
    ev.pop(0)
while len(ev) >= 3 and [e["event"] for e in ev[-3:]] != GROUP:
    ev.pop()
want, i = [], ev[0]["i"] if ev else 0
for k in range(0, len(ev), 3):
    want += [{"event": "Tick", "proc": 0, "i": i + k // 3}, {"event": "Lock", "proc": 0, "lock": 0},
             {"event": "Ticked", "proc": 0, "total": total.get(i + k // 3)}]
want = want[:len(ev)]
if len(ev) < 9 or ev != want:
    sys.exit("%d events; first difference: %s" % (len(ev), next(
        ("%s, expected %s" % (a, b) for a, b in zip(ev, want) if a != b), "too few")))
print("%d ticks" % ((len(ev) + 2) // 3))
PY
}

sleep 0.2
before=$(byte_at $ticker tick)
env --default-signal=INT $CAPTURE probe --probes "$D/ticker.probes" -p $ticker -o "$TMP/c-int" \
	>/dev/null 2>"$TMP/int.err" &
cap=$!
for _ in $(seq 500); do grep -q 'probing process' "$TMP/int.err" && break; sleep 0.01; done
sleep 0.3
held=$(links $cap)
during=$(byte_at $ticker tick)
kill -INT $cap
rc=0
wait $cap || rc=$?
[ "$rc" = 0 ] && [ -s "$TMP/c-int/MANIFEST.json" ] &&
	ok "SIGINT ends the capture of a running process, its corpus written" ||
	not_ok "SIGINT ends the capture, its corpus written" "exit $rc: $(tail -n 2 "$TMP/int.err")"
check "the ticks as the running program logged them" \
	ticks_as_logged "$TMP/c-int/events/ticker.ndjson" "$TMP/ticks.log"
state=$(awk '/^State:/ {print $2} /^TracerPid:/ {print $2}' /proc/$ticker/status | tr '\n' ' ')
if kill -0 $ticker 2>/dev/null && [ "$state" != "${state#[RS] 0}" ]; then
	ok "the process runs on, neither stopped nor traced ($state)"
else
	not_ok "the process runs on, neither stopped nor traced" "state: $state"
fi
after=$(byte_at $ticker tick)
[ "$during" = cc ] && [ "$after" = "$before" ] && [ "$after" != cc ] &&
	ok "its code had the breakpoint while attached, and is its own after ($before)" ||
	not_ok "its code restored after the capture" "before $before, during $during, after $after"
left=""
for id in $held; do bpftool link show id "$id" >/dev/null 2>&1 && left="$left $id"; done
[ -n "$held" ] && [ -z "$left" ] && ok "the capture's BPF links ($(echo $held)) are gone" ||
	not_ok "the capture's BPF links are gone" "held: $held; left:$left"
for f in /sys/kernel/tracing/uprobe_events /sys/kernel/debug/tracing/uprobe_events; do
	[ -r "$f" ] || continue
	grep -q ticker "$f" && not_ok "no uprobe event left in $f" "$(grep ticker "$f")" ||
		ok "no uprobe event left in $f"
done

expect_exit 0 "--seconds ends the capture of a running process" "" \
	$CAPTURE probe --probes "$D/ticker.probes" -p $ticker --seconds 0.5 -o "$TMP/c-sec"
check "--seconds: the ticks as logged" ticks_as_logged "$TMP/c-sec/events/ticker.ndjson" "$TMP/ticks.log"
kill $ticker

# The process's exit ends a capture: the ticker killed once the probes are armed.
"$TMP/ticker" >"$TMP/short.log" &
short=$!
execed $short
$CAPTURE probe --probes "$D/ticker.probes" -p $short -o "$TMP/c-exit" >/dev/null 2>"$TMP/exit.err" &
cap=$!
for _ in $(seq 500); do grep -q 'probing process' "$TMP/exit.err" && break; sleep 0.01; done
sleep 0.3
kill $short
wait $short 2>/dev/null
rc=0
wait $cap || rc=$?
[ "$rc" = 0 ] && [ -s "$TMP/c-exit/MANIFEST.json" ] && ok "the process's exit ends the capture" ||
	not_ok "the process's exit ends the capture" "exit $rc: $(tail -n 2 "$TMP/exit.err")"
check "to its exit: the ticks as logged" ticks_as_logged "$TMP/c-exit/events/ticker.ndjson" "$TMP/short.log"

expect_exit 3 "a pid that is no process: refused" "process $short: " \
	$CAPTURE probe --probes "$D/ticker.probes" -p $short -o "$TMP/c-none"
nothing_left "nothing written: no process" "$TMP/c-none"
expect_exit 2 "-p and a command: a usage error" "usage: capture probe" \
	$CAPTURE probe --probes "$D/ticker.probes" -p 1 -o "$TMP/c-both" -- "$TMP/ticker" 1
expect_exit 2 "--seconds without -p: a usage error" "usage: capture probe" \
	$CAPTURE probe --probes "$D/ticker.probes" --seconds 1 -o "$TMP/c-sec2" -- "$TMP/ticker" 1
