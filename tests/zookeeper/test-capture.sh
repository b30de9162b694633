#!/bin/bash
# capture zookeeper (docs/zookeeper.md): the short election of make test.
# Three real ZooKeeper servers start in network namespaces of their own,
# every JVM under the agent, and elect a leader: windows of the task's
# three target actions, one leader and two followers; nothing lost; what
# must hold in any run (check-fle.py, apart from the folder: shown to fail
# on the stream with one received notification's send taken out, as the
# folder's own check does, exit 4 at its line); the raw stream folded
# again byte-identical, and verified; a second capture satisfying the same
# checks, its raw stream folded again byte-identical too; SIGTERM leaving
# nothing; a jar that is not the one pinned is refused by the install step.
# needs: root java zookeeper python3 jq
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/zookeeper
Z=$TMP/zk

if noted $CAPTURE zookeeper --scenario start -o "$Z" >/dev/null; then
	ok "capture zookeeper --scenario start"
else
	not_ok "capture zookeeper --scenario start" "$(why)"
fi
M=$Z/MANIFEST.json
counts=$(jq -c '[.counts.Notification > 0, .counts.HandleNotification > 0, .counts.BecomeLeader, .counts.BecomeFollower, .counts.ServerStart]' "$M")
if [ "$counts" = "[true,true,1,2,3]" ]; then
	ok "windows of Notification, HandleNotification, BecomeLeader: one leader, two followers, three servers"
else
	not_ok "windows of the target actions" "$(jq -c .counts "$M")"
fi
pins=$(sha256sum "$ROOT/scenarios/zookeeper/jars.sha256" | cut -d' ' -f1)
if [ "$(jq -c '[.probes["01-start"].jvms, .environment.zookeeper, .environment.jars_sha256 == "'"$pins"'"]' "$M")" = '[3,"3.9.1",true]' ] &&
   [ "$(jq -c '.runs[0].info.notifications | .received > 0 and .sent == .received + .not_received' "$M")" = true ]; then
	ok "manifest: three JVMs, ZooKeeper 3.9.1 as pinned, the notifications sent and received"
else
	not_ok "manifest: the JVMs, the version, the pins" "$(jq -c '{probes,environment,runs:[.runs[].info]}' "$M")"
fi

R=$Z/raw/01-start.ndjson
if out=$(python3 "$D/check-fle.py" "$R" 2>&1); then
	ok "what holds in any run: sends before receipts, clocks, one leader an epoch ($out)"
else
	not_ok "what holds in any run" "$out"
fi
# The first send that was received, taken out.
n=$(grep -n '"event":"Receive"' "$R" | head -n 1 | cut -d: -f2- |
	jq -r '"\"event\":\"Send\",\"proc\":[0-9]*,\"from\":\(.from),\"to\":\(.to),"')
first=$(grep -n -m 1 "$n" "$R" | cut -d: -f1)
sed "${first}d" "$R" >"$TMP/lost.ndjson"
if python3 "$D/check-fle.py" "$TMP/lost.ndjson" >/dev/null 2>&1; then
	not_ok "check-fle.py fails a receipt without its send" "it passed"
else
	ok "check-fle.py fails a receipt without its send"
fi
expect_exit 4 "the folder refuses a receipt without its send, at its line" \
	'lost.ndjson:[0-9]+: server [0-9] received from [0-9] a notification never sent' \
	$CAPTURE fold zookeeper "$TMP/lost.ndjson" -o "$TMP/lost"

refolds() {   # refolds CORPUS WHAT: its raw stream folded again gives its bytes
	if noted $CAPTURE fold zookeeper "$1/raw/01-start.ndjson" -o "$1.re" >/dev/null; then
		same_bytes "$2: the raw stream folded again, the same events" "$1/events/01-start.ndjson" "$1.re/events/01-start.ndjson"
		same_bytes "$2: the raw stream folded again, the same windows" "$1/zookeeper/01-start.ndjson" "$1.re/zookeeper/01-start.ndjson"
	else
		not_ok "$2: the raw stream folded again" "$(why)"
	fi
}
refolds "$Z" "a capture"
check "capture verify of the refold" $CAPTURE verify "$Z.re"
# A second capture of the same scenario: another schedule, the same checks.
if noted $CAPTURE zookeeper --scenario start -o "$TMP/zk2" >/dev/null &&
   out=$(python3 "$D/check-fle.py" "$TMP/zk2/raw/01-start.ndjson" 2>&1) &&
   [ "$(jq -c '[.counts.BecomeLeader, .counts.BecomeFollower]' "$TMP/zk2/MANIFEST.json")" = "[1,2]" ]; then
	ok "a second capture: one leader, two followers, what holds in any run ($out)"
else
	not_ok "a second capture satisfies the same checks" "$(why) $out"
fi
refolds "$TMP/zk2" "the second capture"
expect_exit 2 "an unknown scenario is a usage error" "no zookeeper scenario 'nope'" \
	$CAPTURE zookeeper --scenario nope -o "$TMP/nope"

# SIGTERM while the servers run: exit 143, no server, namespace holder,
# directory or corpus left (the servers' command lines name capture's
# own temporary directory, capture-zookeeper.tmp-PID-).
$CAPTURE zookeeper --scenario stale-round -o "$TMP/term" >/dev/null 2>"$TMP/term.err" &
pid=$!
for ((i = 0; i < 600; i++)); do
	grep -q ': elected$' "$TMP/term.err" && break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
sleep 0.5
left=$(pgrep -f "capture-zookeeper.tmp-$pid-" | wc -l)
if [ "$rc" = 143 ] && [ "$left" = 0 ] && ! ls -d "$TMP"/term* "${TMPDIR:-/tmp}"/capture-zookeeper.tmp-$pid-* 2>/dev/null | grep -v term.err; then
	ok "SIGTERM while the servers run: exit 143, nothing left"
else
	not_ok "SIGTERM while the servers run" "exit $rc, $left processes left: $(tail -n 1 "$TMP/term.err")"
fi

# The install step keeps to its pins: one sum changed, the jars refused.
cache=$(dirname "$($CAPTURE zookeeper --classpath | tr ':' '\n' | head -n 1)")
S=$TMP/install
mkdir -p "$S" "$TMP/cache"
cp "$ROOT/scenarios/zookeeper/install" "$ROOT/scenarios/zookeeper/pom.xml" "$S/"
sed '3s/^[0-9a-f]/0/;3s/^0\(.\)/1\1/' "$ROOT/scenarios/zookeeper/jars.sha256" >"$S/jars.sha256"
ln -s "$(dirname "$cache")/m2" "$TMP/cache/m2"
expect_exit 3 "a jar that is not the pinned one is refused" "not the ones pinned" \
	bash "$S/install" "$TMP/cache"
nothing_left "nothing installed from a refused jar" "$TMP/cache/lib"
