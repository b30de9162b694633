# Faults of an etcd eBPF capture: the Go target killed in the
# middle, and a ring buffer too small for the load (--ring-bytes, its
# consumer stopped while the target runs, then reading as it goes on:
# real drops, not --hold-ring's).  Each ends with exit 6 and what was
# lost, and leaves no corpus.  Needs root and Go.
# needs: root btf go goproxy
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
HARNESS=$ROOT/build/etcd/harness

# capture etcd builds the harness the first time.
[ -x "$HARNESS" ] || "$CAPTURE" etcd --scenario election -o "$TMP/warm" >/dev/null 2>"$TMP/warm.err" ||
	{ not_ok "etcd capture faults" "cannot build the harness: $(tail -n 2 "$TMP/warm.err")"; exit 0; }

# A scenario of some seconds under the probes: an election, then 5000
# proposals, each pumped to commit.
home=$TMP/home
mkdir -p "$home/scenarios/etcd"
cp "$ROOT/scenarios/etcd/go.mod" "$home/scenarios/etcd/"
{ echo 'elect 1 3 2'; for i in $(seq 5000); do echo "propose 1 v$i"; echo pump; done; } \
	>"$home/scenarios/etcd/01-long"
# One that runs far longer than the kill below waits, however fast the
# machine: the kill must land while the target runs.
{ echo 'elect 1 3 2'; seq 200000 | awk '{ print "propose 1 v" $1; print "pump" }'; } \
	>"$home/scenarios/etcd/02-endless"
probed() { env CAPTURE_HOME="$home" "$CAPTURE" etcd --binary "$HARNESS" "$@"; }
long() { probed --scenario long "$@"; }

# harness_of PID PATTERN: the pid of the harness whose command line
# matches PATTERN, once capture PID has started it (120 s at most);
# nothing if PID ended first.
harness_of() {
	local i
	for ((i = 0; i < 12000; i++)); do
		pgrep -f -- "$2" && return
		kill -0 "$1" 2>/dev/null || return
		sleep 0.01
	done
}

# The target killed by SIGKILL while it runs under the probes.
probed --scenario endless -o "$TMP/killed" >/dev/null 2>"$TMP/killed.err" &
pid=$!
target=$(harness_of "$pid" "^$HARNESS .*02-endless$")
if [ -n "$target" ]; then
	sleep 0.5
	kill -KILL $target
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 6 ] && grep -q "harness killed by signal 9" "$TMP/killed.err" &&
		ok "a target killed mid-capture: exit 6, says so" ||
		not_ok "a target killed mid-capture: exit 6, says so" "exit $rc: $(tail -n 2 "$TMP/killed.err")"
	nothing_left "a target killed mid-capture: nothing left" "$TMP/killed"
else
	wait "$pid"
	not_ok "a target killed mid-capture" "the target never ran: $(tail -n 2 "$TMP/killed.err")"
fi

# 4 KiB of ring buffer whose consumer falls behind: capture stopped
# (SIGSTOP) while the harness runs the long scenario, continued once it
# has, to read as the harness runs one more.  How far a running
# consumer falls behind is the machine's scheduling; a stopped one takes
# nothing, and each of the 5000 proposals puts a record of 32 bytes or
# more (its Replicate at least) into the 4096 bytes: drops are certain.
# The scenarios are FIFOs, which the harness (-batch) opens in turn and
# reads whole before its first step: it gets 01-flood only once every
# thread of capture is stopped, and opens 02-after only when 01-flood is
# done, which is when 02-after's writer continues capture.
held=$TMP/held
mkdir -p "$held/scenarios/etcd"
cp "$ROOT/scenarios/etcd/go.mod" "$held/scenarios/etcd/"
mkfifo "$held/scenarios/etcd/01-flood" "$held/scenarios/etcd/02-after"
# states PID: the state of each thread of PID, /proc's letter (T stopped,
# Z a zombie).
states() { sed 's/.*) //; s/ .*//' /proc/"$1"/task/*/stat 2>/dev/null; }
# until_none PID STATES: wait (120 s at most) until no thread of PID is in
# one of STATES, a bracket expression of those letters.
until_none() {
	local i
	for ((i = 0; i < 1200; i++)); do
		states "$1" | grep -q "^$2" || return 0
		sleep 0.1
	done
}
# held_small: that capture into $TMP/small; its exit status and stderr.
held_small() {
	local pid target flood after
	# (env execs capture: $! is capture, the target's parent and consumer.)
	env CAPTURE_HOME="$held" "$CAPTURE" etcd --binary "$HARNESS" --scenario all \
		--ring-bytes 4096 -o "$TMP/small" &
	pid=$!
	target=$(harness_of "$pid" "^$HARNESS -batch $held/")
	if [ -z "$target" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid"
		echo "the harness never ran" >&2
		return 1
	fi
	kill -STOP "$pid"
	until_none "$pid" '[^TZ]'
	{ kill -CONT "$pid"; echo 'elect 1 3 2'; echo 'propose 1 v'; echo pump; } \
		>"$held/scenarios/etcd/02-after" &
	after=$!
	cat "$home/scenarios/etcd/01-long" >"$held/scenarios/etcd/01-flood" &
	flood=$!
	# A harness that ends otherwise (02-after's writer left waiting) or
	# hangs still gets capture going on, to say how.  Only a capture still
	# stopped: a SIGCONT to one that exits would undo the SIGSTOP of
	# LeakSanitizer's ptrace and hang it.
	until_none "$target" '[^Z]'
	states "$pid" | grep -q '^T' && kill -CONT "$pid"
	kill "$flood" "$after" 2>/dev/null
	wait "$flood" "$after"
	wait "$pid"
}
expect_exit 6 "a ring buffer too small for the load: exit 6 with the counts" \
	'lost events: [1-9][0-9]* ring-buffer drops \(ring full\).* records received' \
	held_small
nothing_left "a ring buffer too small: nothing left" "$TMP/small"
# The same load fits the default 1 MiB ring.
expect_exit 0 "the same load with the default ring" '' long -o "$TMP/fits"
