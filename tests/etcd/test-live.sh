#!/bin/bash
# capture etcd --live: a real 3-member etcd cluster under load and real eBPF
# uprobes (root, as make test runs), its leader killed under load and
# restarted; what must hold in any run, the refold of its raw stream (as
# etcd and, its start, as etcd-entries), its refusals; a failed run's raw
# stream kept where the message says.
# needs: root btf go goproxy python3 node
# locks: etcd-live
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
SECONDS_RUN=8
# The live corpus is written outside $TMP, which goes at exit: a failed
# run's raw stream stays where the message says (capture's: LIVE.failed/,
# check-live.py's: LIVE/raw/live.ndjson), until the next run of the test.
LIVE=$ROOT/build/test-logs/etcd/live
keep_live=
trap 'rm -rf "$TMP"; [ -n "$keep_live" ] || rm -rf "$LIVE"' EXIT
mkdir -p "${LIVE%/*}"
rm -rf "$LIVE" "$LIVE.failed" "$LIVE-start"

check "a ${SECONDS_RUN} s live cluster with a leader restart" \
	$CAPTURE etcd --live --seconds $SECONDS_RUN -o "$LIVE"
M=$LIVE/MANIFEST.json
if [ ! -f "$M" ]; then
	not_ok "live corpus" "no manifest: the capture failed; what it captured is in $LIVE.failed/"
	exit 0
fi

# manifest KEY... : the value at that path
jv() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v=v.get(k, 0) if isinstance(v, dict) else 0
print(json.dumps(v))' "$M" "$@"; }

[ "$(jv probes ring_buffer_drops)" = 0 ] && [ "$(jv probes records)" -gt 0 ] &&
	ok "records and no drop" || not_ok "records and no drop" "$(jv probes)"
missing=""
for a in ElectionTimeout HandleVoteRequest ClientProposal HandleAppendEntries HandleHeartbeat BecomeLeader Restart; do
	[ "$(jv counts $a)" -gt 0 ] || missing+=" $a"
done
[ -z "$missing" ] && ok "windows of every target action, BecomeLeader and Restart" ||
	not_ok "windows of every action" "none of:$missing ($(jv counts))"
[ "$(jv counts Restart)" = 1 ] && ok "one restart window" || not_ok "one restart window" "$(jv counts Restart)"
# The workload changes no membership: a RemoveNode is an event of one
# member taken for another's (a probe's state kept by goroutine alone).
[ "$(jv counts RemoveNode)" = 0 ] && ok "no member removed" || not_ok "no member removed" "$(jv counts)"
stopped=$(jv workload leader_stopped) new=$(jv workload new_leader)
[ "$stopped" != "$new" ] && [ "$stopped" != '""' ] && [ "$stopped" != 0 ] &&
	ok "the leader changed ($stopped stopped, $new elected)" ||
	not_ok "the leader changed" "stopped $stopped, new $new"
[ "$(jv workload requests)" -gt 0 ] && ok "the clients got answers ($(jv workload requests_per_second) requests/s)" ||
	not_ok "the clients got answers" "$(jv workload)"
[ "$(jv messages received)" -gt 0 ] && [ "$(jv messages sent)" -ge "$(jv messages received)" ] &&
	ok "messages matched ($(jv messages))" || not_ok "messages matched" "$(jv messages)"

if out=$(python3 "$TESTS_DIR/etcd/check-live.py" "$LIVE/raw/live.ndjson" 2>&1); then
	ok "any-run properties of the raw stream (check-live.py)"
else
	keep_live=1
	not_ok "any-run properties of the raw stream (check-live.py)" \
		"$(head -n 3 <<<"$out"; echo "lines of $LIVE/raw/live.ndjson, kept")"
fi
# The checker can fail: the start of the stream with the first received
# message's send removed.
first=$(grep -m1 -n '"name":"Receive' "$LIVE/raw/live.ndjson" | cut -d: -f1)
key=$(sed -n "${first}p" "$LIVE/raw/live.ndjson" | sed 's/.*"msg"://')
head -n 5000 "$LIVE/raw/live.ndjson" |
	awk -v key="$key" '!done && /"name":"Send/ && index($0, "\"msg\":" key) { done = 1; next } 1' \
	>"$TMP/nosend.ndjson"
out=$(python3 "$TESTS_DIR/etcd/check-live.py" "$TMP/nosend.ndjson") &&
	not_ok "check-live.py refuses a stream with a send removed" "it passed" ||
	{ grep -q "^$((first - 1)): .* never sent to it" <<<"$out" &&
	  ok "check-live.py refuses a stream with a send removed (at the receive)" ||
	  not_ok "check-live.py refuses a stream with a send removed" "$out"; }

# Folding the kept raw stream again gives the same events and windows.
check "refold of raw/live.ndjson" $CAPTURE fold etcd "$LIVE/raw/live.ndjson" -o "$TMP/refold"
same_bytes "refold: same events" "$LIVE/events/live.ndjson" "$TMP/refold/events/live.ndjson"
same_bytes "refold: same windows" "$LIVE/etcd/live.ndjson" "$TMP/refold/etcd/live.ndjson"
check "capture verify of the refold" $CAPTURE verify "$TMP/refold"

# The log as entries (etcd-entries) on the stream's start, up to the last
# point in its first 5000 events where every node has taken its Ready
# (quiet-cut.awk: a cut elsewhere ends a window before its change shows),
# the election and about a second of load (the whole run's windows repeat
# each log: 350 MB): tests/graders/entries-check.sh on a corpus of them.
here=$TESTS_DIR/graders
source "$here/entries-check.sh"
start=$TMP/live-start
mkdir -p "$start/raw"
cut=$(awk -v max=5000 -f "$TESTS_DIR/etcd/quiet-cut.awk" "$LIVE/raw/live.ndjson")
[ "$cut" -gt 1000 ] || not_ok "a quiet point in the stream's first 5000 events" "the last is line $cut"
head -n "$cut" "$LIVE/raw/live.ndjson" >"$start/raw/live.ndjson"
"$CAPTURE" fold etcd "$start/raw/live.ndjson" -o "$TMP/live-start.etcd" >/dev/null 2>&1 &&
	mv "$TMP/live-start.etcd/etcd" "$start/etcd"
check_entries live-start "${LIVE%/*}"
# A failed grade kept LIVE-start/: the whole stream it was cut from stays.
[ ! -d "$LIVE-start" ] || keep_live=1

expect_exit 6 "lost records fail the run with counts" 'lost events: [1-9][0-9]* ring-buffer drops' \
	$CAPTURE etcd --live --seconds 2 --no-restart --ring-bytes 4096 --hold-ring -o "$TMP/lossy"
nothing_left "a lossy run leaves no corpus" "$TMP/lossy"
# What it captured stays, as its message says (the held ring kept few
# records: the raw stream may be empty); the members' data does not.
lossy=$TMP/lossy.failed
grep -q "kept in $lossy/ .*raw/live.ndjson" "$TMP/.stderr" && grep -q 'lost events' "$lossy/FAILURE" &&
	[ -f "$lossy/raw/live.ndjson" ] && [ -s "$lossy/history/live.ndjson" ] && [ ! -e "$lossy/.members" ] &&
	ok "a lossy run keeps its raw stream and history in DEST.failed/, not the members' data" ||
	not_ok "a lossy run keeps its raw stream" "$(ls -A "$lossy" 2>&1; tail -n 1 "$TMP/.stderr")"
pgrep -f "$ROOT/build/etcd/live" >/dev/null &&
	not_ok "no member left running" "$(pgrep -af "$ROOT/build/etcd/live")" ||
	ok "no member left running"
# SIGINT while the members run: exit 130, no member left, no corpus.
# (env: a background job of a script starts with SIGINT ignored)
env --default-signal=INT $CAPTURE etcd --live --seconds 30 -o "$TMP/int" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 300); do
	[ "$(pgrep -f -c "$ROOT/build/etcd/live member")" = 3 ] && break
	sleep 0.1
done
kill -INT $pid
rc=0
wait $pid || rc=$?
[ "$rc" = 130 ] && ok "SIGINT during a live run exits 130" ||
	not_ok "SIGINT during a live run exits 130" "exit $rc: $(tail -n 2 "$TMP/int.err")"
pgrep -f "$ROOT/build/etcd/live" >/dev/null &&
	not_ok "SIGINT leaves no member running" "$(pgrep -af "$ROOT/build/etcd/live")" ||
	ok "SIGINT leaves no member running"
nothing_left "SIGINT leaves no corpus" "$TMP/int"
[ ! -e "$TMP/int.failed" ] && ok "SIGINT keeps nothing either" || not_ok "SIGINT keeps nothing either" "$(ls -A "$TMP/int.failed")"
expect_exit 2 "--seconds 0 is a usage error" '--seconds 0: expected a number from 1 to 3600' \
	$CAPTURE etcd --live --seconds 0 -o "$TMP/u1"
expect_exit 2 "--clients x is a usage error" '--clients x: expected a number from 1 to 256' \
	$CAPTURE etcd --live --clients x -o "$TMP/u2"
expect_exit 2 "a stray argument is a usage error" 'capture etcd --live \[--seconds N\]' \
	$CAPTURE etcd --live extra -o "$TMP/u3"
NOBODY=$(mktemp -d /tmp/capture-nobody-XXXXXX)
chmod 777 "$NOBODY"
expect_exit 5 "no BPF permission is an environment error" 'needs root' \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	$CAPTURE etcd --live --seconds 1 -o "$NOBODY/c"
rm -rf "$NOBODY"
