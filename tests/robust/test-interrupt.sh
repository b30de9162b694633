# SIGINT/SIGTERM during a live capture (real QEMU guest): the run ends by
# the signal (exit 130/143), leaves no corpus, no DEST.tmp-*, no cache
# temporary and no QEMU of its own; a verify rerun that times out is
# stopped with its QEMU.  QEMU's command line names the events file inside
# DEST.tmp-*, which tells this run's QEMU from any other.
# needs: qemu
# serial
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
cache=${CAPTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capture}

# qemu_of PATTERN: pids of qemu-system processes whose argv matches.
qemu_of() {
	pgrep -f -- "qemu-system.*$1"
}

# gone NAME PATTERN: within 0.5 s no QEMU matches PATTERN (left alone, the
# guest runs on for over a second).
gone() {
	local i
	for ((i = 0; i < 10; i++)); do
		qemu_of "$2" >/dev/null || { ok "$1"; return; }
		sleep 0.05
	done
	not_ok "$1" "still running: $(qemu_of "$2" | xargs ps -o pid=,args= -p)"
}

# no_cache_tmp NAME PID: the run with PID left no cache temporary *.tmp-PID.
no_cache_tmp() {
	local left
	left=$(find "$cache" -name "*.tmp-$2*" 2>/dev/null)
	[ -z "$left" ] && ok "$1" || not_ok "$1" "$left"
}

# interrupt SIG: signal a capture once its QEMU runs.
interrupt() {
	local sig=$1 out=$TMP/int-$1 pid rc=0 i code start
	code=$((128 + $(kill -l "$sig")))
	start=$(date +%s.%N)
	# A script's background job starts with SIGINT ignored: undo that.
	env --default-signal=INT,TERM "$CAPTURE" spin --scenario contention \
		-o "$out" >/dev/null 2>"$TMP/int.err" &
	pid=$!
	for ((i = 0; i < 6000; i++)); do
		qemu_of "$out.tmp-" >/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if ! qemu_of "$out.tmp-" >/dev/null; then
		not_ok "SIG$sig while QEMU runs" "its QEMU never ran: $(tail -n 2 "$TMP/int.err")"
		wait "$pid"
		return
	fi
	# How long until QEMU ran: verify's --timeout below falls in it.
	qemu_after=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.2f", a - b }')
	kill -"$sig" "$pid"
	wait "$pid" || rc=$?
	[ "$rc" = "$code" ] && ok "SIG$sig: exit $code" ||
		not_ok "SIG$sig: exit $code" "exit $rc: $(tail -n 2 "$TMP/int.err")"
	grep -q "SIG$sig: stopping" "$TMP/int.err" && ok "SIG$sig: says so" ||
		not_ok "SIG$sig: says so" "$(tail -n 2 "$TMP/int.err")"
	gone "SIG$sig: its QEMU is gone" "$out.tmp-"
	nothing_left "SIG$sig: nothing left" "$out"
	no_cache_tmp "SIG$sig: no cache temporary" "$pid"
}

qemu_after=1
interrupt INT
interrupt TERM

# Early, wherever the run is (cache lookups, the accelerator probe).  A
# full boot: a guest restored from its snapshot is done within the second.
env --default-signal=INT CAPTURE_GUEST_BOOT=lean "$CAPTURE" spin --scenario contention -o "$TMP/early" \
	>/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
gone "SIGINT after 1 s: no QEMU" "$TMP/early.tmp-"
nothing_left "SIGINT after 1 s: nothing left" "$TMP/early"
no_cache_tmp "SIGINT after 1 s: no cache temporary" "$pid"

# verify --timeout: the rerun gets SIGTERM, cleans up, its QEMU goes too.
export TMPDIR=$TMP/scratch
mkdir -p "$TMPDIR"
if "$CAPTURE" spin --scenario contention -o "$TMP/live" >/dev/null 2>"$TMP/live.err"; then
	timeout=$(awk -v a="$qemu_after" 'BEGIN { printf "%.2f", a + 0.3 }')
	# The rerun boots in full, so that QEMU runs for longer than the margin.
	expect_exit 8 "verify: a rerun past --timeout ($timeout s)" 'no result within' \
		env CAPTURE_GUEST_BOOT=lean "$CAPTURE" verify --timeout "$timeout" "$TMP/live"
	gone "verify: the rerun's QEMU is gone" "$TMPDIR/"
	[ -z "$(ls -A "$TMPDIR")" ] && ok "verify: no scratch corpus left" ||
		not_ok "verify: no scratch corpus left" "$(ls "$TMPDIR")"
else
	not_ok "capture spin for verify" "$(tail -n 2 "$TMP/live.err")"
fi

# Interrupted while building the kernel module into a fresh build cache:
# the build is stopped and its directory removed.
bcache=$TMP/bcache
mkdir -p "$bcache"
ln -s "$cache/kernel" "$bcache/kernel"   # share the download only
env --default-signal=INT CAPTURE_CACHE="$bcache" "$CAPTURE" spin \
	--scenario contention -o "$TMP/build" >/dev/null 2>"$TMP/build.err" &
pid=$!
for ((i = 0; i < 6000; i++)); do
	pgrep -f -- "M=$bcache/modules/" >/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
if pgrep -f -- "M=$bcache/modules/" >/dev/null; then
	kill -INT "$pid"
	wait "$pid"
	for ((i = 0; i < 10; i++)); do
		pgrep -f -- "$bcache/modules/" >/dev/null || break
		sleep 0.05
	done
	pgrep -f -- "$bcache/modules/" >/dev/null &&
		not_ok "SIGINT in the module build: the build stops" "$(pgrep -af -- "$bcache/modules/")" ||
		ok "SIGINT in the module build: the build stops"
	left=$(find "$bcache" -name '*.tmp-*')
	[ -z "$left" ] && ok "SIGINT in the module build: no build directory left" ||
		not_ok "SIGINT in the module build: no build directory left" "$left"
else
	not_ok "SIGINT in the module build" "the build never ran: $(tail -n 2 "$TMP/build.err")"
	wait "$pid"
fi
