# tests/graders/raft-next.js, the reference grader of the etcd projection
# written from Raft's rules: it passes the etcd reference corpus and
# upstream's with_tla example folded (raftkvs: tests/raftkvs), and it fails
# windows mutated against each rule it checks, saying why.
# needs: reference node python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
grader="node $here/raft-next.js"

py() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$2"; }
expect() { if py "$2" "$3"; then ok "$1"; else not_ok "$1" "$2 is false: $(head -c 300 "$3")"; fi; }

expect_exit 0 "etcd reference corpus passes" '' \
	"$CAPTURE" grade --json --exec "$grader" "$REF/sysmobench-corpora/etcd"
cp "$TMP/.stdout" "$TMP/ref.json"
expect "etcd reference corpus: 117/117, none unscoreable" \
	'r["all"]["passed"] == 117 == r["all"]["windows"] and r["all"]["unscoreable"] == 0' "$TMP/ref.json"

"$CAPTURE" fold etcd "$REF/etcd-with-tla/example.ndjson" -o "$TMP/example" >/dev/null
expect_exit 0 "upstream's with_tla example, folded, passes" '' \
	"$CAPTURE" grade --json --exec "$grader" "$TMP/example"
cp "$TMP/.stdout" "$TMP/example.json"
expect "example: 963/963 scored; membership and bootstrap (18) unscoreable" \
	'r["all"]["passed"] == 963 == r["all"]["windows"] - r["all"]["unscoreable"] and r["all"]["unscoreable"] == 18' "$TMP/example.json"

# Mutants: one window of the reference corpus (event form), changed.
for f in "$REF"/sysmobench-corpora/etcd/*.ndjson; do
	"$CAPTURE" convert --form event "$f" -
done >"$TMP/ev.ndjson"
mutant() { # NAME ACTION WHY PYTHON (on w, pre = w["pre_state"]["nodes"], post, n = acting node's post)
	python3 - "$TMP/ev.ndjson" "$2" "$4" >"$TMP/mutant.ndjson" <<'PY'
import json, sys
path, action, code = sys.argv[1:]
for l in open(path):
    w = json.loads(l)
    if w["action"] == action:
        pre, post = w["pre_state"]["nodes"], w["post_state"]["nodes"]
        n = post[w["data"]["node"]]
        exec(code)
        print(json.dumps(w))
        break
PY
	expect_exit 4 "mutant fails: $1" '' "$CAPTURE" grade --system etcd --json --exec "$grader" "$TMP/mutant.ndjson"
	py "len(r['failures']) == 1 and '$3' in r['failures'][0]['why']" "$TMP/.stdout" &&
		ok "mutant $1: $3" || not_ok "mutant $1: $3" "$(head -c 400 "$TMP/.stdout")"
}
mutant "election skips a term" ElectionTimeout "expected candidate, term" 'n["term"] += 1'
mutant "vote to a third node" HandleVoteRequest "vote may only go to the candidate" 'n["vote"] = "3" if w["data"]["from"] != "3" else "2"'
mutant "append grows the log past its entries" HandleAppendEntries "for prevLogIndex" 'n["log"] += 5'
mutant "append leaves a candidate of that term a candidate" HandleAppendEntries "is a follower" 'n["role"] = "candidate"'
mutant "append from a stale term changes the node" HandleAppendEntries "stale term must change nothing" 'w["data"]["term"] = 0; pre[w["data"]["node"]]["term"] = 5; n["term"] = 5'
mutant "heartbeat commits past the leader" HandleHeartbeat "commit must become" 'n["commit"] = w["data"]["commit"] + 1; n["log"] = max(n["log"], n["commit"]); pre[w["data"]["node"]]["log"] = n["log"]'
mutant "leader's proposal shrinks its log" ClientProposal "log must grow" 'n["log"] = pre[w["data"]["node"]]["log"] - 1'
mutant "a new leader changes its term" BecomeLeader "term changed" 'n["term"] += 1'
mutant "a follower counts replicas" Commit "only a leader advances its commit" 'pre[w["data"]["node"]]["role"] = "follower"; n["role"] = "follower"'
mutant "commit beyond the log" Commit "beyond log" 'n["commit"] = n["log"] + 1'
mutant "another node changes" Commit "changed in a step of node" 'other = [k for k in post if k != w["data"]["node"]][0]; post[other]["commit"] += 1'
mutant "two leaders in a term" Commit "both lead term" 'other = [k for k in post if k != w["data"]["node"]][0]; post[other].update(role="leader", term=n["term"]); pre[other].update(role="leader", term=n["term"])'

# A spec that drops proposals at will: a leader's proposal that changes
# nothing passes only where the window says raft dropped it (its data's
# "dropped", from raft's own ErrProposalDropped: the uncommitted-size limit
# is not in the projection).
drop_at_will='n.update(pre[w["data"]["node"]])'
mutant "a proposal raft dropped appends" ClientProposal "a dropped proposal must change nothing" 'w["data"]["dropped"] = True'
mutant "a leader drops a proposal at will" ClientProposal "changes nothing only where the window says raft dropped it" "$drop_at_will"
# the same window, marked as raft's own drop
python3 - "$TMP/mutant.ndjson" <<'PY' >"$TMP/dropped.ndjson"
import json, sys
w = json.loads(open(sys.argv[1]).read())
w["data"]["dropped"] = True
print(json.dumps(w))
PY
expect_exit 0 "a leader's proposal raft dropped (marked) passes" '' \
	"$CAPTURE" grade --system etcd --json --exec "$grader" "$TMP/dropped.ndjson"
