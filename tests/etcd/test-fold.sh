# The etcd folder (folders/raft/raft.c) on upstream's own with_tla trace
# (reference/etcd-with-tla/example.ndjson: 5 nodes, membership changes):
# it folds, its windows per action match an independent count over the raw
# events, the projection follows nodes joining and leaving, wrapped and bare
# events fold alike; corrupted copies are refused at the right line.
# needs: reference jq python3
source "$(dirname "$0")/../lib.sh"
here=$(dirname "$0")
trace=$REF/etcd-with-tla/example.ndjson

fold() { # INPUT OUT
	rm -rf "$2"
	noted "$CAPTURE" fold etcd "$1" -o "$2" >/dev/null
}
fold "$trace" "$TMP/a" && ok "upstream's example.ndjson folds and passes every check" ||
	not_ok "upstream's example.ndjson folds" "$(why)"
win=$TMP/a/etcd/example.ndjson

want=$(python3 "$here/count-actions.py" "$trace")
got=$(jq -cS '.counts | with_entries(select(.key | IN("ElectionTimeout",
	"HandleVoteRequest", "ClientProposal", "HandleAppendEntries",
	"HandleHeartbeat")))' "$TMP/a/MANIFEST.json")
[ "$(jq -cS . <<<"$want")" = "$got" ] && [ "$(jq 'length' <<<"$got")" = 5 ] &&
	ok "windows per target action $got match the raw events" ||
	not_ok "windows per target action match the raw events" "folded $got, events say $want"

fold "$trace" "$TMP/b" && diff -r "$TMP/a" "$TMP/b" >"$TMP/diff" &&
	ok "folding twice is byte-identical" ||
	not_ok "folding twice is byte-identical" "$(head -n 5 "$TMP/diff")"

# Bare events (what a live capture writes) fold to the same windows.
jq -c 'select(.tag == "trace") | .event' "$trace" >"$TMP/example.ndjson"
fold "$TMP/example.ndjson" "$TMP/bare" &&
	same_bytes "bare with_tla events fold like zap-wrapped ones" "$win" \
		"$TMP/bare/etcd/example.ndjson" ||
	not_ok "bare with_tla events fold like zap-wrapped ones" "$(why)"

# Membership: every node that ever traced joins, every node some
# configuration drops leaves; each window changes at most its node's slice.
python3 - "$trace" "$win" <<'PY' && ok "projection follows joins/leaves; one node's slice per window" ||
import json, sys
nids, dropped = set(), set()
for l in open(sys.argv[1]):
    e = json.loads(l)["event"]
    nids.add(e["nid"])
    new = (e.get("prop") or {}).get("cc", {}).get("newconf")
    if e["name"] == "ApplyConfChange" and new:
        dropped |= set(e["conf"][0]) - set(new)
lines = [json.loads(l) for l in open(sys.argv[2])]
seen = set(lines[0]["state"]["nodes"])
pre = lines[0]["state"]["nodes"]
assert all(isinstance(v["vote"], str) for v in pre.values())
removed = set()
for w in lines[1:]:
    post = w["state"]["nodes"]
    changed = {k for k in set(pre) | set(post) if pre.get(k) != post.get(k)}
    assert changed <= {w["data"]["node"]}, (w, changed)
    if w["action"] == "RemoveNode":
        removed.add(w["data"]["node"])
    seen |= set(post)
    pre = post
assert seen == nids, (seen, nids)
assert removed == dropped, (removed, dropped)
assert sorted(pre, key=int) == list(pre), list(pre)
PY
	not_ok "projection follows joins/leaves; one node's slice per window" "see the assertion above"

# Corrupted copies: exit code, the offending line, nothing written.
refused() { # CODE NAME PATTERN
	rm -rf "$TMP/badout" "$TMP"/badout.tmp-*   # each check on its own
	expect_exit "$1" "$2" "$3" "$CAPTURE" fold etcd "$TMP/bad.ndjson" -o "$TMP/badout"
	nothing_left "$2: nothing written" "$TMP/badout"
}
# edit N JQ: apply JQ to the event of line N of the example.
edit() {
	awk -v n="$1" 'NR == n { exit } { print }' "$trace" >"$TMP/bad.ndjson"
	sed -n "$1p" "$trace" | jq -c "$2" >>"$TMP/bad.ndjson"
	awk -v n="$1" 'NR > n { print }' "$trace" >>"$TMP/bad.ndjson"
}
line_of() { grep -n "$1" "$trace" | sed -n "${2:-1}p" | cut -d: -f1; }

n=$(line_of '"name":"SendAppendEntriesResponse","nid":"3"' 40)
edit "$n" '.event.state.term = 1'
refused 4 "a term that goes back" "bad.ndjson:$n: node 3 goes back: term 2->1"

n=$(line_of '"name":"SendAppendEntriesResponse","nid":"3"' 40)
edit "$n" '.event.state.commit = .event.log + 1'
refused 4 "a commit beyond the log" "bad.ndjson:$n: node 3 (goes back|commits [0-9]+ beyond its log)"

n=$(line_of '"name":"SendAppendEntriesResponse","nid":"3"' 40)
edit "$n" '.event.role = "StateLeader"'
refused 4 "two leaders in one term" "bad.ndjson:$n: node 3 leads term 2, which node 2 already led"

n=$(line_of '"name":"BecomeCandidate"')
edit "$n" '.event.state.vote = "3"'
refused 4 "an election timeout that does not vote for itself" "bad.ndjson:$n: ElectionTimeout of node 2 gives .* vote 3"

head -n 300 "$trace" >"$TMP/bad.ndjson"
sed -n 301p "$trace" | head -c 100 >>"$TMP/bad.ndjson"
refused 3 "a truncated JSON line" "bad.ndjson:301:"

edit 10 '.event.role = "StateBoss"'
refused 3 "an unknown role" "bad.ndjson:10: unknown role StateBoss"

# Input the window writer would refuse dies in the reader, at its line:
# invalid UTF-8 in a string the events keep, a number beyond a double.
edit 10 '.'
sed -i '10s/"vote":"0"/"vote":"\xff"/' "$TMP/bad.ndjson"
refused 3 "invalid UTF-8 in a string" "bad.ndjson:10: invalid UTF-8 in a JSON string"
edit 10 '.event.unused = 1'
sed -i '10s/"unused":1/"unused":1e999/' "$TMP/bad.ndjson"
refused 3 "a number that is not finite" "bad.ndjson:10: a JSON number out of range"

# A run that shows no step (one node's InitState) is no ground truth.
head -n 1 "$trace" >"$TMP/bad.ndjson"
refused 4 "a run without a window" "bad.ndjson: no windows: "
