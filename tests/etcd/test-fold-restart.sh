# The etcd folder's restart rule on a hand-made stream: node 1 leads term
# 1, appends entries 4 and 5 (committed once the followers saved them),
# and is killed before its own save; it restarts from what it persisted
# (log 3, HardState commit 3).  Losing that unpersisted tail is accepted;
# a restart whose log lost entries its persisted commit covers, and a
# restarted node that goes on to lead without the committed entries, are
# refused at their line.
# needs: jq
source "$(dirname "$0")/../lib.sh"

source "$(dirname "$0")/events.sh"
app() { # NID: node NID receives node 1's append of entries 1..5
	printf '{"name":"ReceiveAppendEntries","nid":"%s","role":"StateFollower","state":{"term":0,"vote":"0","commit":0},"log":0,"msg":{"type":"MsgApp","from":"1","to":"%s","term":1,"logTerm":0,"index":0,"entries":5,"commit":0}}\n' "$1" "$1"
}
{
	ev InitState 1 Follower 0 0 0 0
	ev InitState 2 Follower 0 0 0 0
	ev InitState 3 Follower 0 0 0 0
	ev BecomeCandidate 1 Candidate 1 1 0 0
	ev BecomeLeader 1 Leader 1 1 0 0
	ev Ready 1 Leader 1 1 0 1
	ev Replicate 1 Leader 1 1 0 1
	ev Ready 1 Leader 1 1 0 5
	app 2
	ev Ready 2 Follower 1 0 0 5
	app 3
	ev Ready 3 Follower 1 0 0 5
	ev Commit 1 Leader 1 1 5 5
	ev InitState 1 Follower 0 0 0 3
} >"$TMP/head.ndjson"
{ cat "$TMP/head.ndjson"; ev BecomeFollower 1 Follower 1 1 3 3; } >"$TMP/lost-tail.ndjson"
{ cat "$TMP/head.ndjson"; ev BecomeFollower 1 Follower 1 1 3 2; } >"$TMP/lost-committed.ndjson"
{
	cat "$TMP/lost-tail.ndjson"
	ev BecomeCandidate 1 Candidate 2 1 3 3
	ev BecomeLeader 1 Leader 2 1 3 3
} >"$TMP/leads-without.ndjson"

check "a restart that lost an unpersisted tail folds" \
	"$CAPTURE" fold etcd "$TMP/lost-tail.ndjson" -o "$TMP/a"
win=$TMP/a/etcd/lost-tail.ndjson
got=$(jq -c 'select(.action == "Restart") | .state.nodes["1"] | [.term, .vote, .commit, .log]' "$win" 2>&1)
[ "$got" = '[1,"1",3,3]' ] && ok "its Restart window shows the persisted state (term 1, vote 1, commit 3, log 3)" ||
	not_ok "its Restart window shows the persisted state" "got $got"
pre=$(jq -c 'select(.action == "Commit") | .state.nodes["1"] | [.commit, .log]' "$win" 2>&1)
[ "$pre" = '[5,5]' ] && ok "the state before the crash had commit 5, log 5" ||
	not_ok "the state before the crash had commit 5, log 5" "got $pre"

expect_exit 4 "a restart whose log lost entries of its persisted commit is refused" \
	'lost-committed.ndjson:15: node 1 restarts without its durable state: term 1->1, vote 1->1, log 5->2 with commit 3' \
	"$CAPTURE" fold etcd "$TMP/lost-committed.ndjson" -o "$TMP/b"
nothing_left "the refused fold leaves nothing" "$TMP/b"
expect_exit 4 "a restarted node leading without the committed entries is refused" \
	'leads-without.ndjson:17: node 1 leads term 2 with a log of 3 entries, but 5 were committed in earlier terms' \
	"$CAPTURE" fold etcd "$TMP/leads-without.ndjson" -o "$TMP/c"
nothing_left "that refused fold leaves nothing" "$TMP/c"
