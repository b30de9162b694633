#!/bin/bash
# capture etcd --live --nemesis: a short run with every fault kind once
# (the members in network namespaces of their own), the clients' history
# linearizable and the raft checks passing through the faults; runs of
# 1-2 s, with the nemesis or the leader's restart, passing; nothing
# (namespace, link, nft table, process) left after a run, a SIGINT or a
# SIGKILL of capture; the seeded bug (a put answered before it commits)
# caught with a minimal history, its failed run kept and not replaced by
# later runs that capture nothing; an unknown fault kind a usage error.
# needs: root go goproxy
# locks: etcd-live
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
LIVE=$ROOT/build/etcd/live

if [ "$(id -u)" != 0 ]; then
	not_ok "etcd live nemesis" "needs root for BPF uprobes and network namespaces"
	exit 0
fi

# cookie PATH: the cookie of the network namespace PATH names.  Its inode
# number is no name: the next namespace made on the machine takes it up
# once this one is gone; a cookie is never reused (SO_NETNS_COOKIE, 71).
cookie() {
	nsenter --net="$1" python3 -c 'import socket
print(int.from_bytes(socket.socket().getsockopt(socket.SOL_SOCKET, 71, 8), "little"))' 2>/dev/null
}
# netns_of: the running members' network namespaces, one a line: its
# inode, then its cookie.
netns_of() {
	local p
	for p in $(pgrep -f "$LIVE member"); do
		echo "$(readlink "/proc/$p/ns/net") $(cookie "/proc/$p/ns/net")"
	done | awk 'NF == 2' | sort -u
}
# held NSFILE: of the namespaces in NSFILE (netns_of's lines), those some
# process is in or holds open.
held() {
	local ns c path
	while read -r ns c; do
		for path in $(find /proc/[0-9]*/ns/net /proc/[0-9]*/fd -maxdepth 1 -printf '%p %l\n' \
			2>/dev/null | awk -v ns="$ns" '$2 == ns { print $1 }'); do
			[ "$(cookie "$path")" = "$c" ] && { echo "$ns"; break; }
		done
	done <"$1"
}
# watch PID OUT: the members' namespaces, once all three run while capture
# PID runs, into OUT.
watch() {
	: >"$2"
	for _ in $(seq 600); do
		kill -0 "$1" 2>/dev/null || break
		[ "$(pgrep -fc "$LIVE member")" -ge 3 ] && netns_of >"$2"
		[ "$(wc -l <"$2")" -ge 3 ] && break
		sleep 0.1
	done
}
# ours: the run's links and tables seen from this machine's namespace
# (none should ever be: they live in the run's own namespaces).
ours() { ip -br link | grep -E '^(vm[0-9]|vclients|br0)[@ ]'; nft list tables 2>/dev/null | grep nemesis; }
# left NAME NSFILE: nothing of a run left (namespaces, links, tables, members).
left() {
	local ns bad=""
	ns=$(held "$2")
	[ -n "$ns" ] && bad+=" namespaces still held: $ns;"
	[ -n "$(ours)" ] && bad+=" links or tables: $(ours);"
	pgrep -f "$LIVE" >/dev/null && bad+=" processes: $(pgrep -af "$LIVE");"
	[ -z "$bad" ] && ok "$1" || not_ok "$1" "$bad"
}

# The short run: 7 faults in 8 s (slots of 1 s), seed 3.
$CAPTURE etcd --live --seconds 8 --nemesis all --seed 3 -o "$TMP/n" >"$TMP/n.out" 2>&1 &
pid=$!
watch $pid "$TMP/ns"
[ "$(wc -l <"$TMP/ns")" = 3 ] && [ -n "$(held "$TMP/ns")" ] &&
	ok "three members in namespaces of their own (seen held while they run)" ||
	not_ok "members in namespaces of their own" "$(cat "$TMP/ns")"
cut -d' ' -f1 "$TMP/ns" | grep -qxF "$(readlink /proc/self/ns/net)" &&
	not_ok "no member in this machine's namespace" "$(cat "$TMP/ns")"
rc=0
wait $pid || rc=$?
[ "$rc" = 0 ] && ok "a nemesis run of every fault kind" ||
	not_ok "a nemesis run of every fault kind" "exit $rc: $(tail -n 5 "$TMP/n.out")"
left "the run leaves no namespace, link, table or process" "$TMP/ns"
M=$TMP/n/MANIFEST.json
if [ ! -f "$M" ]; then
	not_ok "nemesis corpus" "no manifest"
	exit 0
fi
jq_ok() { # NAME FILTER: the manifest's FILTER is true
	if jq -e "$2" "$M" >/dev/null; then ok "$1"; else not_ok "$1" "$(jq -c "$3" "$M")"; fi
}
jq_ok "every fault kind applied once, as scheduled" \
	'.workload.nemesis as $n | ($n.applied | map(.kind) | sort) ==
	 ["bridge","crash","isolate","isolate-leader","loss","one-way","pause"] and
	 ($n.schedule | map(.kind)) == ($n.applied | map(.kind))' '.workload.nemesis'
jq_ok "the schedule and seed are in the manifest" \
	'.live.seed == 3 and .live.nemesis == "all" and (.workload.nemesis.schedule | length) == 7' '.live'
jq_ok "the history is linearizable (Porcupine, per key)" \
	'.workload.linearizability.result == "Ok" and .workload.linearizability.keys > 0' \
	'.workload.linearizability'
jq_ok "no lost record, messages matched" \
	'.probes.ring_buffer_drops == 0 and .messages.received > 0' '[.probes, .messages]'
jq_ok "the crashed member restarted (a Restart window)" '.counts.Restart >= 1' '.counts'
jq_ok "no member removed (the workload changes no membership)" '.counts.RemoveNode == null' '.counts'
H=$TMP/n/history/live.ndjson
ops=$(jq -s '[.[] | select(.type == "invoke")] | length' "$H")
done_=$(jq -s '[.[] | select(.type == "ok" or .type == "fail" or .type == "info")] | length' "$H")
jq_ok "the history file holds every operation, its outcome counted" \
	"(.workload.operations | .ok + .fail + .unknown) == $done_ and $ops == $done_" '.workload.operations'
crashes=$(jq '[.workload.nemesis.applied[] | select(.kind == "crash")] | length' "$M")
check "any-run properties of the raw stream under faults (check-live.py)" \
	python3 "$TESTS_DIR/etcd/check-live.py" --crashes "$crashes" "$TMP/n/raw/live.ndjson"
out=$(python3 "$TESTS_DIR/etcd/check-live.py" --crashes $((crashes + 1)) \
	"$TMP/n/raw/live.ndjson") &&
	not_ok "check-live.py counts the restarts" "it passed with one crash too many" ||
	ok "check-live.py counts the restarts (one too many refused)"

# Short runs (--seconds goes down to 1): a member restarted at the end
# (the leader killed half-way takes an election, longer than half a 1 s
# run, to restart; a crash the nemesis heals as it stops) is stopped once
# it has joined again, not while it starts.
for run in "--seconds 1" "--seconds 1 --clients 1" "--seconds 2 --nemesis all --seed 1"; do
	check "a short run: $run" $CAPTURE etcd --live $run -o "$TMP/short"
	rm -rf "$TMP/short" "$TMP/short.failed"
done

# SIGINT in the middle of the faults: exit 130, nothing left.
env --default-signal=INT $CAPTURE etcd --live --seconds 30 --nemesis all -o "$TMP/int" \
	2>"$TMP/int.err" &
pid=$!
watch $pid "$TMP/ns2"
sleep 2
kill -INT $pid
rc=0
wait $pid || rc=$?
[ "$rc" = 130 ] && ok "SIGINT during a nemesis run exits 130" ||
	not_ok "SIGINT during a nemesis run exits 130" "exit $rc: $(tail -n 2 "$TMP/int.err")"
left "SIGINT leaves no namespace, link, table or process" "$TMP/ns2"
nothing_left "SIGINT leaves no corpus" "$TMP/int"

# SIGKILL: capture cleans nothing up, yet every process it started dies
# with it (parent-death signals: the cluster's, and the members' from the
# cluster), and with the last of them the namespaces, links and tables.
# Their end is asynchronous: polled, 20 s at most.
$CAPTURE etcd --live --seconds 30 --nemesis all -o "$TMP/kill" 2>"$TMP/kill.err" &
pid=$!
watch $pid "$TMP/ns3"
kill -KILL $pid
wait $pid 2>/dev/null
for _ in $(seq 200); do
	pgrep -f "$LIVE" >/dev/null || [ -n "$(held "$TMP/ns3")" ] || break
	sleep 0.1
done
[ "$(wc -l <"$TMP/ns3")" = 3 ] || not_ok "SIGKILL: the members seen running" "$(cat "$TMP/ns3")"
left "SIGKILL leaves no namespace, link, table or process" "$TMP/ns3"
# (a failure above must not leave the members to the next test)
for p in $(pgrep -f "$LIVE"); do kill -KILL "$p"; done
rm -rf "$TMP"/kill.tmp-*

# The seeded bug: a put answered 300 ms before it is sent.
check "build the seeded-bug variant" go -C "$ROOT/scenarios/etcd/live" build -trimpath \
	-buildvcs=false -mod=readonly -tags seededbug -o "$TMP/seeded" .
expect_exit 4 "the seeded bug is caught by the linearizability check" 'not linearizable' \
	$CAPTURE etcd --live --binary "$TMP/seeded" --seconds 3 --no-restart -o "$TMP/bug"
if grep -q 'a minimal history of [0-9]* operations' "$TMP/.stderr" &&
	grep -q 'get() -> ' "$TMP/.stderr"; then
	ok "the minimal history is printed ($(grep -c '^  c[0-9]' "$TMP/.stderr") operations)"
else
	not_ok "the minimal history is printed" "$(tail -n 5 "$TMP/.stderr")"
fi
nothing_left "the seeded-bug run leaves no corpus" "$TMP/bug"
[ -s "$TMP/bug.failed/history/live.ndjson" ] && grep -q 'not linearizable' "$TMP/bug.failed/FAILURE" &&
	ok "the seeded-bug run keeps its history and raw stream in DEST.failed/" ||
	not_ok "the seeded-bug run keeps its history in DEST.failed/" "$(ls -A "$TMP/bug.failed" 2>&1)"
# Later runs on that DEST that fail before capturing anything (an unknown
# fault kind, a missing --binary) keep nothing: the kept run stays.
still_kept() {
	grep -q 'not linearizable' "$TMP/bug.failed/FAILURE" && [ -s "$TMP/bug.failed/history/live.ndjson" ] &&
		grep -q "bug.failed/, an earlier failure's, is left as it was" "$TMP/.stderr" &&
		ok "$1: the kept failed run stays" ||
		not_ok "$1: the kept failed run stays" "$(cat "$TMP/bug.failed/FAILURE"; tail -n 1 "$TMP/.stderr")"
}
expect_exit 2 "an unknown fault kind is a usage error" 'unknown fault "flood"' \
	$CAPTURE etcd --live --seconds 1 --nemesis pause,flood -o "$TMP/bug"
nothing_left "the usage error leaves no corpus" "$TMP/bug"
still_kept "an unknown fault kind"
expect_exit 3 "a missing --binary is refused" 'absent: cannot open' \
	$CAPTURE etcd --live --seconds 1 --binary "$TMP/absent" -o "$TMP/bug"
still_kept "a missing --binary"
