#!/bin/bash
# A new leader's empty entry and a proposal before its next Ready, on a
# hand-made stream as a live etcd server makes them (it proposes as soon as
# it leads): raft traces BecomeLeader, then appendEntry's Replicate of the
# empty entry at the same log, then the proposal's Replicate one entry
# later.  The empty entry is BecomeLeader's window (one entry), the
# proposal a ClientProposal window of its own, as count-actions.py counts
# them from the events, and raft-next.js passes every window.
# needs: jq python3 node
source "$(dirname "$0")/../lib.sh"

source "$(dirname "$0")/events.sh"
{
	ev InitState 1 Follower 0 0 0 0
	ev InitState 2 Follower 0 0 0 0
	ev InitState 3 Follower 0 0 0 0
	ev BecomeCandidate 1 Candidate 1 1 0 0
	ev BecomeLeader 1 Leader 1 1 0 0
	ev Replicate 1 Leader 1 1 0 0
	ev Replicate 1 Leader 1 1 0 1
	ev Replicate 1 Leader 1 1 0 1
	ev Ready 1 Leader 1 1 0 3
} >"$TMP/lead.ndjson"

check "the stream folds as etcd" "$CAPTURE" fold etcd "$TMP/lead.ndjson" -o "$TMP/a"
got=$(jq -c 'select(.action) | [.action, .state.nodes["1"].log]' "$TMP/a/etcd/lead.ndjson" 2>&1 | paste -sd ' ')
want='["ElectionTimeout",0] ["BecomeLeader",1] ["ClientProposal",3]'
[ "$got" = "$want" ] && ok "the empty entry is BecomeLeader's, the proposal's two entries a ClientProposal ($got)" ||
	not_ok "the empty entry is BecomeLeader's, the proposal's two entries a ClientProposal" "got $got, want $want"
counted=$(python3 "$TESTS_DIR/etcd/count-actions.py" "$TMP/lead.ndjson")
folded=$(jq -cS '.counts | with_entries(select(.key | IN("ElectionTimeout", "ClientProposal")))' "$TMP/a/MANIFEST.json")
[ "$(jq -cS . <<<"$counted")" = "$folded" ] && ok "the counts $folded are count-actions.py's" ||
	not_ok "the counts are count-actions.py's" "folded $folded, counted $counted"
check "raft-next.js passes every window" \
	"$CAPTURE" grade --exec "node $TESTS_DIR/graders/raft-next.js" "$TMP/a"
check "the stream folds as etcd-entries" "$CAPTURE" fold etcd-entries "$TMP/lead.ndjson" -o "$TMP/e"
check "raft-entries.js passes every window" \
	"$CAPTURE" grade --exec "node $TESTS_DIR/graders/raft-entries.js" "$TMP/e"
