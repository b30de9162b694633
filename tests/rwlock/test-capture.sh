# capture rwlock for real: Debian's kernel under QEMU, the rwlock module
# on one rwlock_t.  Both scenarios at two CPUs (a write_lock and a
# read_lock really waiting in the queued rwlock's slow path, the kernel's
# lock:contention_begin/end seen), the windows' content, a second capture
# byte-identical but for the raw ring-buffer pages, one CPU, a module
# built afresh without a warning, refusals.
# needs: qemu python3
# locks: guest
source "$(dirname "$0")/../lib.sh"
# Two 2-CPU TCG guests at once on a loaded 2-vCPU host were seen silent
# past the default 10 s before /init: a stall that long is load, not a hang.
export CAPTURE_GUEST_STALL=${CAPTURE_GUEST_STALL:-30}

# The windows of a file, one a line (tests/rwlock/summary.py).
summary() { python3 "$ROOT/tests/rwlock/summary.py" "$1"; }
# trace RUN KEY: the manifest's environment.trace.runs.RUN.KEY of corpus $A.
trace() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["trace"]["runs"][sys.argv[2]][sys.argv[3]])' \
		"$A/MANIFEST.json" "$1" "$2"
}

A=$TMP/a B=$TMP/b
if ! "$CAPTURE" rwlock --scenario all -o "$A" >/dev/null 2>"$TMP/a.err"; then
	not_ok "capture rwlock --scenario all" "$(tail -n 3 "$TMP/a.err")"
	exit 0
fi
ok "capture rwlock --scenario all (two CPUs)"

got=$(summary "$A/rwlock/01-contention.ndjson" | tr '\n' ' ')
want="ReadLock(0) r>r0 WriteTryLock(0) r0>r0 ReadUnlock(0) r0>r WriteLock(1) r>w1 ReadTryLock(1) w1>w1 WriteUnlock(1) w1>r ReadLock(0) r>r0 ReadLock(1) r0>r01 ReadUnlock(0) r01>r1 ReadUnlock(1) r1>r "
[ "$got" = "$want" ] && ok "contention: the windows the kernel's answers make" ||
	not_ok "contention: the windows the kernel's answers make" "$got"
# The writer's wait: its call, the kernel's contention_begin, the reader's
# failed write_trylock and its unlock, contention_end, the return.
got=$(grep -o '"thread":[01],"op":"[a-z_]*","event":"[a-z_]*"' "$A/raw/01-contention.log" |
	sed -n 3,10p | sed 's/"thread":\(.\),"op":"\([a-z_]*\)","event":"\([a-z_]*\)"/\1\2:\3/' | tr '\n' ' ')
want="1write_lock:call 1write_lock:contention_begin 0write_trylock:call 0write_trylock:return 0read_unlock:call 0read_unlock:return 1write_lock:contention_end 1write_lock:return "
[ "$got" = "$want" ] && ok "contention: write_lock waited in the slow path (lock:contention_begin/end)" ||
	not_ok "contention: write_lock waited in the slow path (lock:contention_begin/end)" "$got"
for k in "01-contention cpus 2" "01-contention contention_begin 2" "01-contention contention_end 2" \
	 "02-coverage contention_begin 0" "02-coverage contention_end 0"; do
	set -- $k
	v=$(trace "$1" "$2" 2>&1)
	[ "$v" = "$3" ] && ok "manifest: $1 $2 = $3" || not_ok "manifest: $1 $2 = $3" "$v"
done
"$CAPTURE" audit "$A" >"$TMP/audit.txt" 2>&1
grep -qF 'coverage: 32/32 reachable observed (32 covered by windows, 0 only never completing; 72 cells, 40 impossible)' "$TMP/audit.txt" &&
	ok "audit: every reachable cell covered" ||
	not_ok "audit: every reachable cell covered" "$(head -n 3 "$TMP/audit.txt")"
# The JSON channel is the decoded stream less its contention lines.
grep -v -e contention_ -e 'CAPTURE END' "$A/raw/01-contention.log" | sed 's/"seq":[0-9]*,//' >"$TMP/dec"
grep -v 'CAPTURE END' "$A/raw/01-contention.json.log" | sed 's/"seq":[0-9]*,//' >"$TMP/json"
same_bytes "the JSON channel says what the trace says" "$TMP/dec" "$TMP/json"

"$CAPTURE" rwlock --scenario all -o "$B" >/dev/null 2>"$TMP/b.err"
diff -r -x '*.ftrace' "$A" "$B" >"$TMP/diff" 2>&1 &&
	ok "a second capture: byte-identical, manifest included (raw pages aside)" ||
	not_ok "a second capture: byte-identical, manifest included (raw pages aside)" "$(head -n 5 "$TMP/diff")"
# The guest is restored from its snapshot (qemu/snapshot.c), like spin's:
# the module loaded, its tracing armed and tracedump waiting in it.
grep -q '"guest_boot": "snapshot"' "$B/MANIFEST.json" &&
	ok "second capture: restored from a snapshot (the manifest says so)" ||
	not_ok "second capture: restored from a snapshot (the manifest says so)" \
		"$(grep -o '"guest_boot": "[a-z]*"' "$B/MANIFEST.json")"
! grep -Eq 'save a snapshot|booting the' "$TMP/b.err" &&
	grep -q 'restoring the rwlock-contention guest' "$TMP/b.err" &&
	ok "second capture: only restores" ||
	not_ok "second capture: only restores" "$(grep -E 'snapshot|booting|restoring' "$TMP/b.err")"
"$CAPTURE" fold rwlock "$B/raw/01-contention.ftrace" -o "$TMP/refold" >/dev/null 2>"$TMP/refold.err" &&
	same_bytes "a restored run's trace channel (the snapshot's formats, then its pages) folds again" \
		"$TMP/refold/rwlock/01-contention.ndjson" "$B/rwlock/01-contention.ndjson" ||
	not_ok "a restored run's trace channel folds again" "$(tail -n 3 "$TMP/refold.err")"
check "capture verify" "$CAPTURE" verify "$A"
"$CAPTURE" rwlock --scenario all -j 1 -o "$TMP/j1" >/dev/null 2>"$TMP/j1.err"
diff -r -x '*.ftrace' "$A" "$TMP/j1" >"$TMP/diff" 2>&1 &&
	ok "-j 1: the same corpus" || not_ok "-j 1: the same corpus" "$(head -n 5 "$TMP/diff")"

"$CAPTURE" rwlock --scenario coverage --cpus 1 -o "$TMP/one" >/dev/null 2>"$TMP/one.err"
# The module built afresh (its sources and the headers it shares with
# spin's, qemu/guest/module-*.h) under the kernel's flags: no warning.
cache=${CAPTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capture}
mkdir -p "$TMP/cache"
ln -s "$cache/kernel" "$TMP/cache/kernel"   # share the download only
check "capture with a fresh build cache" env CAPTURE_CACHE="$TMP/cache" \
	"$CAPTURE" rwlock --scenario coverage --cpus 1 -o "$TMP/fresh"
no_build_warning "fresh cache: the module built without a warning" \
	"$TMP/cache/last-run/rwlock-module-build.log"
same_bytes "fresh cache: the same windows" "$TMP/fresh/rwlock/02-coverage.ndjson" \
	"$TMP/one/rwlock/02-coverage.ndjson"
same_bytes "coverage at one CPU: the windows of two" "$TMP/one/rwlock/02-coverage.ndjson" \
	"$A/rwlock/02-coverage.ndjson"
expect_exit 3 "contention at one CPU: refused, naming the line" \
	"scenarios/rwlock/01-contention:5: '1 write_lock': the kernel cannot run this step: waiting for the other actor is impossible at one CPU" \
	"$CAPTURE" rwlock --scenario contention --cpus 1 -o "$TMP/refused"
nothing_left "contention at one CPU: nothing written" "$TMP/refused"
expect_exit 2 "an unknown scenario" 'known: contention, coverage' \
	"$CAPTURE" rwlock --scenario nosuch -o "$TMP/unknown"
mkdir -p "$TMP/sc"
printf '0 read_lock\n0 read_lock\n' >"$TMP/sc/01-recursive"
expect_exit 3 "a recursive read lock: refused by the module, naming the line" \
	"01-recursive:2: '0 read_lock': the kernel cannot run this step: a recursive read lock" \
	"$CAPTURE" rwlock --scenarios "$TMP/sc" --scenario recursive -o "$TMP/rec"
nothing_left "a recursive read lock: nothing written" "$TMP/rec"

# The resident tracedump runs the scenario (qemu/guest/tracedump.c -p): one
# of its failures, here a stop word that rwlock's module has no parameter
# for, fails the run with the console log's path, and the log says why.
expect_exit 6 "a parameter the module lacks: the run fails" 'console log: ' \
	env CAPTURE_GUEST_STOP=midway "$CAPTURE" rwlock --scenario contention -o "$TMP/nostop"
nothing_left "a parameter the module lacks: nothing written" "$TMP/nostop"
log=$(grep -o 'console log: [^ ]*' "$TMP/.stderr" | tail -n 1 | cut -d' ' -f3)
grep -q 'tracedump: failed: the module has no stop parameter' "$log" 2>/dev/null &&
	ok "a parameter the module lacks: the console says so" ||
	not_ok "a parameter the module lacks: the console says so" "$(tail -n 2 "$log" 2>&1)"
