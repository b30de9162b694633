#!/bin/bash
# capture hashicorp: etcd's five scenario files on HashiCorp's raft
# (scenarios/hashicorp/, the library unmodified) under real eBPF uprobes,
# folded into etcd's projection: twice byte-identical, verified, every
# scored window passing raft-next.js; the language scenarios it can run;
# what it cannot mean on hashicorp's raft refused at the scenario's line.
# needs: root btf go goproxy node python3
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
source "$TESTS_DIR/raft/lib.sh"
LANG_DIR=$TESTS_DIR/raft/scenarios

# The two captures under the two schedules of raft's goroutines that made
# a replicator's append carry the commit of before its last answer, or of
# after (docs/hashicorp.md, "The harness"): GOMAXPROCS=1 (the replicator
# runs on, the leader's main loop waits), and a replicator that yields
# 2 ms before it reads the commit index (the main loop first).
raft_five hashicorp GOMAXPROCS=1 HASHICORP_HARNESS_LATE_APPEND=2000
grep -q '"raft_module": "github.com/hashicorp/raft"' "$TMP/a/MANIFEST.json" &&
	grep -q '"raft_version": "v1.8.0"' "$TMP/a/MANIFEST.json" &&
	ok "the manifest names the raft and its version" ||
	not_ok "the manifest names the raft and its version" "$(grep raft_ "$TMP/a/MANIFEST.json")"

# The language scenarios hashicorp's raft can run: a partition, crashes
# and restarts (Restart windows keep term and vote: its stable store), a
# compaction and a snapshot (node 2 compacts at 2, its FSM at 3: the
# append of s2 carried the commit of s1, which its answer made).
for s in 11-partition 12-crash-restart 13-snapshot; do
	check "$s on hashicorp" "$CAPTURE" hashicorp --scenario "$LANG_DIR/$s" -o "$TMP/$s"
	graded "$TMP/$s" "$s"
done
[ "$(grep -c '"action": "Restart"' "$TMP/12-crash-restart/hashicorp/12-crash-restart.ndjson")" = 2 ] &&
	ok "12-crash-restart: two Restart windows" ||
	not_ok "12-crash-restart: two Restart windows" "$(grep -c Restart "$TMP/12-crash-restart/hashicorp/"*.ndjson)"
[ "$(grep -c '"action": "HandleSnapshot"' "$TMP/13-snapshot/hashicorp/13-snapshot.ndjson")" = 1 ] &&
	ok "13-snapshot: node 3 installs a snapshot" ||
	not_ok "13-snapshot: node 3 installs a snapshot" "$(grep -c HandleSnapshot "$TMP/13-snapshot/hashicorp/"*.ndjson)"

# What a step cannot mean on hashicorp's raft: exit 3 at its line, no corpus.
refused() { # NAME SCENARIO LINE
	expect_exit 3 "$1 refused at its line" "$2:$3:" \
		"$CAPTURE" hashicorp --scenario "$2" -o "$TMP/refused"
	nothing_left "$1 leaves no corpus" "$TMP/refused"
}
# twice_graded NAME FILE DIR: FILE captured into DIR and DIR.2, the two
# windows byte-identical, DIR graded.
twice_graded() {
	check "$1" "$CAPTURE" hashicorp --scenario "$2" -o "$3"
	check "$1 again" "$CAPTURE" hashicorp --scenario "$2" -o "$3.2"
	diff -r "$3/hashicorp" "$3.2/hashicorp" >/dev/null &&
		ok "$1: two captures' windows byte-identical" ||
		not_ok "$1: two captures' windows byte-identical" "$(kept "$(basename "$3")" "$3" "$3.2"
			f=$(basename "$2").ndjson
			first_difference "$3/hashicorp/$f" "$3.2/hashicorp/$f")"
	graded "$3" "$1"
}
refused "a checkquorum header" "$LANG_DIR/15-checkquorum" 6
refused "a pre-vote campaign of a node that heard from a leader" "$LANG_DIR/14-prevote" 9

# Pre-vote (hashicorp's, PreVoteDisabled off): a campaign of a node that
# never heard from a leader is its heartbeat timeout, a pre-vote round
# in Candidate that the spec shows as etcd's pre-candidate.
printf 'config prevote on\nelect 1 2 3\npropose 1 a\npump\ncrash 2\ncrash 3\nrestart 3\nrestart 2\ncampaign 3\npump\npropose 3 b\npump\n' >"$TMP/06-prevote"
twice_graded "a pre-vote scenario" "$TMP/06-prevote" "$TMP/pv"
W=$TMP/pv/hashicorp/06-prevote.ndjson
[ "$(grep -c '"action": "BecomePreCandidate"' "$W")" = 2 ] &&
	[ "$(grep '"action": "BecomePreCandidate"' "$W" | grep -c '"role": "precandidate"')" = 2 ] &&
	[ "$(grep -c '"action": "ElectionTimeout"' "$W")" = 2 ] &&
	ok "a pre-vote scenario: two pre-candidate rounds, each then an election" ||
	not_ok "a pre-vote scenario: two pre-candidate rounds" "$(grep -o '"action": "[A-Za-z]*"' "$W" | sort | uniq -c | tr '\n' ' ')"
printf 'elect 1 2 3\ncompact 2 2\n' >"$TMP/09-noop"
refused "a compaction past what the node's FSM applied (the no-op)" "$TMP/09-noop" 2
printf 'elect 1 2 3\npropose 1 a\npump\ncompact 1 3\ncompact 1 3\n' >"$TMP/07-twice"
refused "a compaction of what the log dropped already" "$TMP/07-twice" 5

# A generated scenario (-generate 140 40) whose compactions dropped the
# entry an append names as previous: the follower rejected it, the
# leader sent its snapshot, which did not bring it back, and again, a
# loop that never settled (docs/hashicorp.md, "Steps on hashicorp's raft").
# compact keeps that entry now, as etcd's compaction keeps its term.
cat >"$TMP/compact-loop" <<'SC'
config prevote on
config checkquorum off
config election-tick 10
config heartbeat-tick 1
elect 2 3 1
crash 2
restart 2
campaign 2
deliver-one 1<-2
deliver 3<-2
deliver-one 2<-3
deliver 1<-2
pump
propose 2 v2
deliver-one 3<-2
deliver 1<-2
deliver-one 2<-3
deliver-one 2<-1
tick 2
pump
compact 2 4
tick 2
propose 2 v11
duplicate 3<-2
duplicate 3<-2
duplicate 3<-2
deliver-one 1<-2
deliver-one 1<-2
deliver-one 2<-1
tick 2
partition 2 | 3 1
tick 2
propose 2 v21
tick 2
compact 1 4
propose 2 v24
heal
partition 3 | 1 2
tick 2
propose 2 v28
discard 1
propose 2 v30
deliver-one 1<-2
pump
SC
check "a scenario whose compactions looped settles" \
	timeout 30 "$ROOT/build/hashicorp/harness" "$TMP/compact-loop"

# compact: Raft.Snapshot with the log dropped up to the step's index; a
# follower cut off meanwhile gets InstallSnapshot, etcd's HandleSnapshot
# (the snapshot at what the FSM applied, 5, above the step's 4), then a
# restart over the installed snapshot.  Two proposals before a pump: the
# second is sent as soon as the first's append is answered, with the
# commit that answer made (docs/hashicorp.md, "The harness").
printf 'elect 1 2 3\npartition 1 2 | 3\npropose 1 s1\npropose 1 s2\npump\npropose 1 s3\npump\ncompact 1 4\ncompact 2 3\nheal\ntick 1\npump\npropose 1 s4\npump\ncrash 3\nrestart 3\ntick 1\npump\n' >"$TMP/08-snapshot"
twice_graded "a snapshot scenario" "$TMP/08-snapshot" "$TMP/sn"
W=$TMP/sn/hashicorp/08-snapshot.ndjson
python3 - "$W" <<'PY' && ok "a snapshot scenario: node 3 installs the snapshot of index 5" ||
import json, sys
ws = [json.loads(l) for l in open(sys.argv[1])]
snap = [w for w in ws if w.get("action") == "HandleSnapshot"]
sys.exit(0 if len(snap) == 1 and snap[0]["data"]["node"] == "3" and
         snap[0]["data"]["index"] == 5 and
         snap[0]["state"]["nodes"]["3"]["log"] == 5 else 1)
PY
	not_ok "a snapshot scenario: node 3 installs the snapshot of index 5" "$(grep -o '"action": "HandleSnapshot".\{0,80\}' "$W")"
refused "a proposal to a follower" "$LANG_DIR/10-messages" 18
printf 'config election-tick 3\nconfig heartbeat-tick 2\nelect 1 2 3\n' >"$TMP/02-beat"
refused "a heartbeat every other tick" "$TMP/02-beat" 2
printf 'config election-tick 3\nconfig prevote off\nelect 1 2 3\ntick 2\ntick 1\npump\n' >"$TMP/03-ticks"
check "election-tick and prevote off are taken" \
	"$CAPTURE" hashicorp --scenario "$TMP/03-ticks" -o "$TMP/ticks"
[ "$(grep -c '"action": "HandleHeartbeat"' "$TMP/ticks/hashicorp/03-ticks.ndjson")" = 2 ] &&
	ok "a leader's tick is one heartbeat round, a follower's nothing" ||
	not_ok "a leader's tick is one heartbeat round" "$(grep -c HandleHeartbeat "$TMP/ticks/hashicorp/"*)"
printf 'elect 1 2 3\ncampaign 1\n' >"$TMP/01-leader"
refused "a campaign of the leader" "$TMP/01-leader" 2
printf 'elect 1 2 3\nhold 3\npropose 1 a\nrelease 3\n' >"$TMP/04-hold"
refused "hold" "$TMP/04-hold" 2
printf 'elect 1 2 3\nremove-node 1 3\n' >"$TMP/05-remove"
refused "remove-node" "$TMP/05-remove" 2
printf 'elect 1 2 3\nadd-node 1 4\n' >"$TMP/06-add"
refused "add-node of a fourth node" "$TMP/06-add" 2
refused "a max-uncommitted-size header" "$LANG_DIR/26-conf-dropped" 5
printf 'campaign 1\nelect 2 3 1\n' >"$TMP/05-transfer"
refused "a campaign into a term another node is at" "$TMP/05-transfer" 2

# The differential (scripts/raft-differential) against etcd on the same
# files: the classes only one reached, and equal pre-states compared.
check "capture etcd of the same scenario files" "$CAPTURE" etcd --scenario all -o "$TMP/etcd"
"$ROOT/scripts/raft-differential" --offset B=1 "$TMP/etcd" "$TMP/a" >"$TMP/differ" 2>&1
grep -qx '  only etcd: candidate BecomeFollower' "$TMP/differ" &&
	grep -qx '  only hashicorp: candidate HandleVoteRequest granted, new term' "$TMP/differ" &&
	ok "differential: the lost candidate's classes, one each side" ||
	not_ok "differential: the lost candidate's classes" "$(head -n 5 "$TMP/differ")"
grep -Eq '^equal pre-state, action and data: [1-9][0-9]* \([0-9]+ same transition, 0 different\)$' "$TMP/differ" &&
	ok "differential: every comparable window of the five takes the same transition" ||
	not_ok "differential: comparable windows" "$(grep equal "$TMP/differ")"
"$ROOT/scripts/raft-differential" "$TMP/etcd" "$TMP/a" >"$TMP/differ0" 2>&1
grep -q '^equal pre-state, action and data: 0 ' "$TMP/differ0" &&
	ok "differential: without the offset no pre-state is equal" ||
	not_ok "differential: without the offset" "$(grep equal "$TMP/differ0")"
