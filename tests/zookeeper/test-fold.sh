#!/bin/bash
# zookeeper's folder (docs/zookeeper.md, "The projection") on the raw
# streams of five real captures (tests/zookeeper/NN-*.ndjson: capture
# zookeeper --scenario all): each folds, and passes check-fle.py; every
# target action of the task has windows, rejected votes and more than
# one election per run among them; the canonical and ITF forms convert
# back to the same windows; the audit's coverage; each of the folder's
# checks refuses a stream with one violation planted (plant.py), exit 4
# (3 for an event it does not know) at the planted line, nothing written.
# needs: python3 jq
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/zookeeper
RUNS="01-start 02-leader-restart 03-isolate 04-stale-log 05-stale-round"

$CAPTURE fold zookeeper $(for r in $RUNS; do echo "$D/$r.ndjson"; done) -o "$TMP/all" >/dev/null 2>"$TMP/fold.err" ||
	not_ok "the five runs fold" "$(tail -n 2 "$TMP/fold.err")"
for r in $RUNS; do
	if [ -s "$TMP/all/zookeeper/$r.ndjson" ] &&
	   out=$(python3 "$D/check-fle.py" "$D/$r.ndjson" 2>&1); then
		ok "$r folds; what holds in any run holds ($out)"
	else
		not_ok "$r folds and passes check-fle.py" "$out"
	fi
done
counts=$(jq -c '.counts' "$TMP/all/MANIFEST.json")
if [ "$(jq -c '[.Notification > 0, .HandleNotification > 0, .BecomeLeader >= 4, .ServerRestart > 0]' <<<"$counts")" = "[true,true,true,true]" ] &&
   [ "$(jq '[.runs[] | select(.windows.BecomeLeader >= 2)] | length' "$TMP/all/MANIFEST.json")" = 4 ]; then
	ok "every target action has windows, four runs with two elections or more ($counts)"
else
	not_ok "every target action, two elections a run" "$counts"
fi
# A vote rejected: a LOOKING notification of the handler's round with a
# lower vote leaves its vote as it was; in 04 a stale zxid is the reason.
rejected=$(jq -c 'select(.action == "HandleNotification" and .data.state == "LOOKING") |
	(.data.server | tostring) as $s | select(.data.round == .pre_state.logicalClock[$s] and
	.data.vote.proposedZxid < .pre_state.currentVote[$s].proposedZxid) |
	select(.post_state.currentVote[$s] == .pre_state.currentVote[$s])' \
	"$TMP/all/zookeeper/04-stale-log.ndjson" | wc -l)
if [ "$rejected" -gt 0 ]; then
	ok "04-stale-log: $rejected votes of an older zxid rejected"
else
	not_ok "04-stale-log: a vote of an older zxid rejected" "none"
fi

for form in canonical itf; do
	$CAPTURE fold zookeeper "$D/01-start.ndjson" --form $form -o "$TMP/$form" >/dev/null 2>&1
	if [ $form = canonical ]; then from=$TMP/$form/zookeeper; else from=$TMP/$form/zookeeper/01-start.itf.json; fi
	if noted $CAPTURE convert --form event "$from" "$TMP/back-$form" >/dev/null; then
		back=$TMP/back-$form
		[ -d "$back" ] && back=$(ls "$back"/*.ndjson | head -n 1)
		same_bytes "--form $form converts back to the same windows" \
			"$TMP/all/zookeeper/01-start.ndjson" "$back"
	else
		not_ok "--form $form converts back" "$(why)"
	fi
done
ls "$TMP/canonical/zookeeper" | grep -q '^HandleNotification.ndjson$' &&
	ok "the canonical form: a file per action" || not_ok "the canonical form: a file per action" "$(ls "$TMP/canonical/zookeeper")"

$CAPTURE audit "$TMP/all" >"$TMP/audit.txt" 2>&1
if grep -Eq '^coverage: [0-9]+/70 reachable observed .* 252 cells, 182 impossible\)' "$TMP/audit.txt"; then
	ok "audit: $(grep '^coverage' "$TMP/audit.txt" | cut -d' ' -f2) of the 70 reachable cells, 182 impossible"
else
	not_ok "audit: the domain's cells" "$(head -n 8 "$TMP/audit.txt")"
fi

refused() {   # refused WHAT CODE PATTERN [RUN]: the planted stream refused at its line
	local line
	line=$(python3 "$D/plant.py" "$1" "$D/${4:-01-start}.ndjson" "$TMP/$1.ndjson")
	expect_exit "$2" "refused: $1, at its line" "$1.ndjson:$line: .*$3" \
		$CAPTURE fold zookeeper "$TMP/$1.ndjson" -o "$TMP/out-$1"
	nothing_left "nothing written: $1" "$TMP/out-$1"
}
refused clock 4 'the logical clock of process [0-9] goes back'
refused unsent 4 'received from [0-9] a notification never sent'
refused leaders 4 'takes epoch [0-9]+ as a second leader beside'
refused follower 4 'takes epoch [0-9]+ following [0-9], whose leader is'
refused votes 4 'counts [0-9]+ votes of its election and [0-9]+ outside it, the notifications it handled give'
refused leave 4 'leaves FOLLOWING with a vote for [0-9]'
refused outside 4 'polls outside an election' 02-leader-restart
refused event 3 'not an event of fle.probes'

# Window files tell zookeeper by its actions; etcd's BecomeLeader windows,
# auxiliary there, a target here, stay etcd's (docs/audit.md).
tells() {   # tells NAME SYSTEM FILE...: audit without --system names SYSTEM
	local name=$1 sys=$2; shift 2
	$CAPTURE audit "$@" >"$TMP/tells.txt" 2>&1
	if grep -q "^audit of $sys:" "$TMP/tells.txt"; then ok "$name"; else
		not_ok "$name" "$(head -n 3 "$TMP/tells.txt")"; fi
}
tells "zookeeper's action files tell zookeeper" zookeeper "$TMP/canonical/zookeeper"
w() { printf '{"action":"%s","data":{"node":"1"},"pre_state":{"nodes":{}},"post_state":{"nodes":{}}}\n' "$@"; }
w BecomeLeader >"$TMP/etcd-leader.ndjson"
w ElectionTimeout BecomeLeader >"$TMP/etcd-election.ndjson"
expect_exit 0 "--system etcd of etcd's BecomeLeader windows" "" \
	$CAPTURE audit --system etcd "$TMP/etcd-leader.ndjson"
tells "ElectionTimeout and BecomeLeader windows tell etcd" etcd "$TMP/etcd-election.ndjson"
