# PGo's raftkvs (folders/raftkvs/raftkvs.c) on the three shared runs: each folds and
# passes every check, twice byte-identical; windows per action agree with a
# jq count of the raw records; the windows follow Raft's rules by the
# reference grader; corrupted copies of a real run are refused with their
# exit code and file:line, leaving no corpus.
# needs: reference jq python3 node
source "$(dirname "$0")/../lib.sh"
runs=("$REF"/pgo-traces/raftkvs/*/)
[ ${#runs[@]} = 3 ] && ok "3 raftkvs runs present" ||
	not_ok "3 raftkvs runs present" "found ${#runs[@]} in $REF/pgo-traces/raftkvs"

for run in "${runs[@]}"; do
	check "raftkvs $(basename "$run") passes every check" \
		"$CAPTURE" check raftkvs "$run"
done
"$CAPTURE" fold raftkvs "${runs[@]}" -o "$TMP/a" >/dev/null &&
	"$CAPTURE" fold raftkvs "${runs[@]}" -o "$TMP/b" >/dev/null &&
	diff -r "$TMP/a" "$TMP/b" >"$TMP/diff" &&
	ok "folding twice is byte-identical" ||
	not_ok "folding twice is byte-identical" "$(head -n 5 "$TMP/diff")"

# steps LABEL [jq condition]: committed records whose .pc write left LABEL.
steps() {
	cat "$REF"/pgo-traces/raftkvs/*/trace-*.log | jq -c --arg l "\"$1\"" 'select(.isAbort == false)
		| select(any(.csElements[]; .tag == "write" and .name.name == ".pc" and .oldValue == $l))
		'"${2:+| select($2)}" | wc -l
}
writes() { echo "any(.csElements[]; .tag == \"write\" and .name.name == \"$1\")"; }
reads_msg() { echo "any(.csElements[]; .tag == \"read\" and .name.name == \"m\" and (.value | test(\"mtype\\\"\\\\) :> \\\\(\\\"($1)\\\"\")))"; }
expect_count() { # ACTION EXPECTED
	local got; got=$(jq ".counts.$1 // 0" "$TMP/a/MANIFEST.json")
	[ "$got" = "$2" ] && [ "$2" -gt 0 ] && ok "$1 windows = $2 committed steps" ||
		not_ok "$1 windows = committed steps" "folded $got, the records have $2"
}
expect_count ElectionTimeout "$(steps AServerRequestVote.serverRequestVoteLoop)"
expect_count BecomeLeader "$(steps AServerBecomeLeader.serverBecomeLeaderLoop "$(writes state)")"
expect_count ClientProposal "$(steps AServer.handleMsg "$(reads_msg 'cpq|cgq')")"
expect_count Commit "$(steps AServerAdvanceCommitIndex.applyLoop "$(writes commitIndex)")"
expect_count ClientRequest "$(steps AClient.sndReq "$(writes net)")"
expect_count ClientReply "$(steps AClient.rcvResp)"
want=$(cat "$REF"/pgo-traces/raftkvs/*/trace-*.log | jq -c 'select(.isAbort)' | wc -l)
got=$(jq '[.runs[].info.aborted_sections_dropped] | add' "$TMP/a/MANIFEST.json")
[ "$got" = "$want" ] && [ "$want" -gt 0 ] &&
	ok "$want aborted sections dropped and counted in the manifest" ||
	not_ok "aborted sections counted" "manifest says $got, records have $want"
seed=$(head -n 1 "$TMP/a/raftkvs/$(basename "${runs[0]}").ndjson")
[ "$seed" = '{"state": {"nodes": {"1": {"role": "follower", "term": 1, "vote": "0", "commit": 0, "log": 0}}}}' ] &&
	ok "seed line: one follower in term 1, in the etcd projection" || not_ok "seed line" "$seed"

expect_exit 0 "every window follows Raft's rules (tests/graders/raft-next.js)" '' \
	"$CAPTURE" grade --json --exec "node $ROOT/tests/graders/raft-next.js" "$TMP/a"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["all"]["passed"] != r["all"]["windows"] or r["all"]["windows"] != 246)' \
	"$TMP/.stdout" && ok "grader: 246/246" || not_ok "grader: 246/246" "$(head -c 300 "$TMP/.stdout")"

# Corrupted copies of a real run.  Each: exit code, file:line, no corpus.
src=${runs[0]%/}
corrupt() { rm -rf "$TMP/bad"; cp -r "$src" "$TMP/bad"; chmod -R u+w "$TMP/bad"; }
refused() { # CODE NAME PATTERN
	rm -rf "$TMP/badout" "$TMP"/badout.tmp-*
	expect_exit "$1" "$2" "$3" "$CAPTURE" fold raftkvs "$TMP/bad" -o "$TMP/badout"
	nothing_left "$2: nothing written" "$TMP/badout"
}
# edit FILE LABEL PYTHON: run PYTHON on the elements `es` of the committed
# records of FILE that executed LABEL, up to the first it changes; prints
# that record's line number.
edit() {
	python3 - "$@" <<'PY'
import json, sys
path, label, code = sys.argv[1:]
lines = open(path).read().splitlines()
for i, l in enumerate(lines):
    r = json.loads(l)
    es = r["csElements"]
    if not r["isAbort"] and any(e["tag"] == "write" and e["name"]["name"] == ".pc" and e.get("oldValue") == '"%s"' % label for e in es):
        exec(code)
        if json.dumps(r, separators=(",", ":")) != l:
            lines[i] = json.dumps(r, separators=(",", ":"))
            print(i + 1)
            break
open(path, "w").write("\n".join(lines) + "\n")
PY
}

corrupt
f=$(echo "$TMP"/bad/trace-3-*.log)
sed -i '4{h;d};5{G}' "$f"       # swap lines 4 and 5 of AServerAppendEntries 3
refused 4 "lines swapped against the vector clocks" 'trace-3-[0-9]+\.log:4: own clock of AServerAppendEntries 3 goes from 3 to 5'

corrupt   # the leader reads a term no step wrote
line=$(edit "$(echo "$TMP"/bad/trace-1-*.log)" AServer.handleMsg '
for e in es:
    if e["name"]["name"] == "currentTerm": e["value"] = "3"')
refused 4 "a read that no write before it explains" \
	"trace-1-[0-9]+\\.log:$line: AServer 1 reads currentTerm\\[1\\] = 3, but the last write before it in the merged order left 2"

corrupt   # the election timeout takes the term back
line=$(edit "$(echo "$TMP"/bad/trace-2-*.log)" AServerRequestVote.serverRequestVoteLoop '
for e in es:
    if e["name"]["name"] == "currentTerm" and e["value"] == "2": e["value"] = "0"')
refused 4 "a term that decreases" "trace-2-[0-9]+\\.log:$line: server 1 goes back: term 1->0"

corrupt   # the election timeout does not vote for itself
line=$(edit "$(echo "$TMP"/bad/trace-2-*.log)" AServerRequestVote.serverRequestVoteLoop '
for e in es:
    if e["name"]["name"] == "votedFor": e["value"] = "0"')
refused 4 "an election that does not vote for itself" \
	"trace-2-[0-9]+\\.log:$line: ElectionTimeout of server 1 gives term 2, role candidate, vote 0"

corrupt   # a commit past the end of the log
line=$(edit "$(echo "$TMP"/bad/trace-4-*.log)" AServerAdvanceCommitIndex.applyLoop '
for e in es:
    if e["name"]["name"] == "commitIndex" and e["value"] == "1": e["value"] = "5"')
refused 4 "a commit beyond the log" "trace-4-[0-9]+\\.log:$line: server 1 commits 5 beyond its log of 1 entries"

corrupt   # a helper that says it works for another server
line=$(edit "$(echo "$TMP"/bad/trace-5-*.log)" AServerBecomeLeader.serverBecomeLeaderLoop '
for e in es:
    if e["name"]["name"] == "srvId": e["value"] = "2"')
refused 4 "a helper's srvId that is not its self's" \
	"trace-5-[0-9]+\\.log:$line: AServerBecomeLeader 5 reads srvId 2; with 1 servers it is server 1's"

corrupt   # a step of a label raftkvs does not have
line=$(edit "$(echo "$TMP"/bad/trace-1-*.log)" AServer.serverLoop '
for e in es:
    if e["name"]["name"] == ".pc" and e["tag"] == "write": e["oldValue"] = "\"AServer.crash\""')
refused 3 "an unknown label" "trace-1-[0-9]+\\.log:$line: unknown AServer label \"AServer.crash\""

corrupt   # a message whose log entries are not a sequence
line=$(edit "$(echo "$TMP"/bad/trace-1-*.log)" AServer.handleMsg '
for e in es:
    if e["name"]["name"] == "log" and e["tag"] == "write": e["value"] = "{1}"')
refused 3 "a log that is not a sequence" "trace-1-[0-9]+\\.log:$line: log of AServer 1 is \\{1\\}, not a sequence"

# Paths the shared runs never take (one server, one client), on runs
# written by gen-run.py: a vote granted, an append taken, a response of a
# newer term; two leaders of one term.
python3 "$ROOT/tests/raftkvs/gen-run.py" "$TMP/handlers" handlers
"$CAPTURE" fold raftkvs --form event "$TMP/handlers" -o "$TMP/h" >/dev/null 2>"$TMP/h.err" &&
	python3 - "$TMP/h/raftkvs/handlers.ndjson" <<'PY' && ok "vote, append and newer-term response: their windows" ||
import json, sys
ws = [json.loads(l) for l in open(sys.argv[1])]
got = [(w["action"], w["data"], w["post_state"]["nodes"]["1"]) for w in ws]
want = [
    ("HandleVoteRequest", {"node": "1", "from": "2", "term": 2, "logTerm": 0, "index": 0},
     {"role": "follower", "term": 2, "vote": "2", "commit": 0, "log": 0}),
    ("HandleAppendEntries", {"node": "1", "from": "2", "term": 2, "logTerm": 0, "index": 0, "entries": 1, "commit": 1},
     {"role": "follower", "term": 2, "vote": "2", "commit": 1, "log": 1}),
    ("BecomeFollower", {"node": "1"}, {"role": "follower", "term": 3, "vote": "0", "commit": 1, "log": 1}),
]
sys.exit(0 if got == want else print(got) or 1)
PY
	not_ok "vote, append and newer-term response: their windows" "$(cat "$TMP/h.err")"
check "vote, append and newer-term response follow Raft's rules" \
	"$CAPTURE" grade --exec "node $ROOT/tests/graders/raft-next.js" "$TMP/h"
rm -rf "$TMP/bad"
python3 "$ROOT/tests/raftkvs/gen-run.py" "$TMP/bad" two-leaders
refused 4 "two leaders of one term" 'trace-10-1\.log:1: server 2 leads term 2, which server 1 already led'

# etcd and raftkvs share action names: window files without a manifest are
# still told apart (an etcd run without heartbeats uses no action raftkvs
# lacks, but lacks more of raftkvs's than of etcd's).
for f in "$REF"/sysmobench-corpora/etcd/*.ndjson; do
	"$CAPTURE" audit "$f" 2>&1 | head -n 1 | cut -d: -f1
done | sort | uniq -c >"$TMP/systems"
grep -Eq "^ +5 audit of etcd$" "$TMP/systems" && [ "$(wc -l <"$TMP/systems")" = 1 ] &&
	ok "each etcd reference file alone is etcd" || not_ok "each etcd reference file alone is etcd" "$(cat "$TMP/systems")"
"$CAPTURE" audit "$TMP/a/raftkvs/$(basename "${runs[0]}").ndjson" 2>&1 | head -n 1 | grep -q '^audit of raftkvs:' &&
	ok "a raftkvs window file alone is raftkvs" ||
	not_ok "a raftkvs window file alone is raftkvs" "$("$CAPTURE" audit "$TMP/a/raftkvs/$(basename "${runs[0]}").ndjson" 2>&1 | head -n 2)"
