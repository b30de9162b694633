# Faults of an etcd eBPF capture: the Go target killed in the
# middle, and a ring buffer too small for the load (--ring-bytes, read
# while the target runs: real drops, not --hold-ring's).  Each ends with
# exit 6 and what was lost, and leaves no corpus.  Needs root and Go.
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

# The target killed by SIGKILL while it runs under the probes.
probed --scenario endless -o "$TMP/killed" >/dev/null 2>"$TMP/killed.err" &
pid=$!
target=
for ((i = 0; i < 1000; i++)); do
	target=$(pgrep -f -- "^$HARNESS .*02-endless$") && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
done
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

# 4 KiB of ring buffer, read as the target runs: the consumer falls behind.
expect_exit 6 "a ring buffer too small for the load: exit 6 with the counts" \
	'lost events: [1-9][0-9]* ring-buffer drops \(ring full\).* records received' \
	long --ring-bytes 4096 -o "$TMP/small"
nothing_left "a ring buffer too small: nothing left" "$TMP/small"
# The same load fits the default 1 MiB ring.
expect_exit 0 "the same load with the default ring" '' long -o "$TMP/fits"
