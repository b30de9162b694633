#!/bin/bash
# capture raftrs: etcd's scenario files on TiKV's raft-rs (crate raft 0.7.0,
# unmodified; scenarios/raftrs/, a cargo package) under real eBPF uprobes
# placed by scenarios/raftrs/raft.probes alone, folded into etcd's
# projection: twice byte-identical, verified, every scored window passing
# raft-next.js; the probes' last state of each node equal to what raft-rs
# itself reports (the harness's -log); the language scenarios; bad lines
# refused as etcd's harness refuses them; and the three-way differential
# (scripts/raft-differential) against etcd's and hashicorp's rafts.
# needs: root btf cargo crates go goproxy node python3
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin:$HOME/.cargo/bin
source "$TESTS_DIR/raft/lib.sh"
LANG_DIR=$TESTS_DIR/raft/scenarios

raft_five raftrs
grep -q '"raft_module": "raft"' "$TMP/a/MANIFEST.json" &&
	grep -q '"raft_version": "0.7.0"' "$TMP/a/MANIFEST.json" &&
	grep -q '"rustc_version": "rustc ' "$TMP/a/MANIFEST.json" &&
	ok "the manifest names the crate, its version and rustc" ||
	not_ok "the manifest names the crate and its version" "$(grep -E 'raft_|rustc' "$TMP/a/MANIFEST.json")"

# The probes against raft-rs's own account: the harness's -log reads the
# library's structs after every step; each state must be among the node's
# events, in order, the last its last event's.
HARNESS=$ROOT/build/raftrs/debug/harness
# against_log SCENARIO CORPUS
against_log() {
	local n
	n=$(basename "$1")
	if noted "$HARNESS" -log "$TMP/$n.log" "$1" &&
		noted python3 "$TESTS_DIR/raftrs/check-log.py" "$TMP/$n.log" "$2/events/$n.ndjson"; then
		ok "$n: every state raft-rs reports is in the probes' events, in order"
	else
		not_ok "$n: every state raft-rs reports is in the probes' events, in order" "$(why)"
	fi
}
for s in "$ROOT"/scenarios/etcd/0*; do
	against_log "$s" "$TMP/a"
done

# The language scenarios, all of which raft-rs runs (compact, hold,
# PreVote, CheckQuorum) but 26 and 29, refused below (keys raft-rs has no
# counterpart for).  A held node's window in 22, 23 and 27 ends before the
# later term a rejected pre-vote brings, which is a window of its own (the
# fold splits it at the rise, on either raft), so raft-next.js passes them.
mkdir -p "$TMP/lang"
for s in "$LANG_DIR"/*; do
	case $(basename "$s") in 26-* | 29-*) ;; *) cp "$s" "$TMP/lang/" ;; esac
done
check "the language scenarios on raft-rs" \
	"$CAPTURE" raftrs --scenarios "$TMP/lang" --scenario all -o "$TMP/l"
graded "$TMP/l" "the language scenarios"
for s in "$TMP"/lang/*; do
	against_log "$s" "$TMP/l"
done
[ "$(grep -c '"action": "Restart"' "$TMP/l/raftrs/12-crash-restart.ndjson")" = 2 ] &&
	ok "12-crash-restart: two Restart windows" ||
	not_ok "12-crash-restart: two Restart windows" "$(grep -c Restart "$TMP/l/raftrs/12-crash-restart.ndjson")"
grep -q '"action": "HandleSnapshot", "data": {"node": "3", "from": "1", "term": 1, "index": 3}' \
	"$TMP/l/raftrs/13-snapshot.ndjson" &&
	ok "13-snapshot: node 3 is caught up by a MsgSnap at 3" ||
	not_ok "13-snapshot: a MsgSnap at 3" "$(grep -o '"action": "HandleSnapshot[^}]*' "$TMP/l/raftrs/13-snapshot.ndjson")"

# A bad line: exit 3 at its file:line with etcd's words, no corpus.
refused() { # NAME PATTERN TEXT
	mkdir -p "$TMP/bad"
	printf '%b' "$3" >"$TMP/bad/01-bad"
	expect_exit 3 "$1 refused at its line" "$2" \
		"$CAPTURE" raftrs --scenario "$TMP/bad/01-bad" -o "$TMP/refused"
	nothing_left "$1 leaves no corpus" "$TMP/refused"
}
refused "an unknown word" '01-bad:2: unknown step "deliver-all"' 'elect 1 2 3\ndeliver-all 2<-1\n'
refused "a tick that may reach the election timeout" \
	'01-bad:10: tick 2: node 2 has ticked 9 time\(s\)' "$(printf 'tick 2\\n%.0s' 1 2 3 4 5 6 7 8 9 10)"
refused "compacting beyond what is applied" '01-bad:2: compact 1 2: node 1 has applied only up to 1' \
	'elect 1 2 3\ncompact 1 2\n'
refused "a proposal with no leader" '01-bad:1: propose 2: raft: proposal dropped' 'propose 2 x\n'
# etcd's keys raft-rs has no counterpart for (scenarios 26 and 29)
refused "forwarding off" "01-bad:1: config forwarding off: raft-rs has no counterpart of etcd's DisableProposalForwarding" \
	'config forwarding off\nelect 1 2 3\n'
refused "a max-uncommitted-size below max_size_per_msg" \
	'01-bad:1: config max-uncommitted-size 1: raft-rs takes no limit below its max_size_per_msg, 1048576 here' \
	'config max-uncommitted-size 1\nelect 1 2 3\n'

# No Rust toolchain: exit 5 naming it, nothing written.
mkdir -p "$TMP/nobin"
expect_exit 5 "no cargo is an environment missing" 'no Rust toolchain \(cargo on PATH' \
	env PATH="$TMP/nobin" HOME="$TMP/nohome" "$CAPTURE" raftrs --scenario election -o "$TMP/nocargo"
nothing_left "no cargo leaves no corpus" "$TMP/nocargo"

# The scenario language read in Rust as scenario.go reads it: the same
# bad lines, the same file:line and words from both harnesses.
check "capture etcd of the same scenario files" "$CAPTURE" etcd --scenario all -o "$TMP/etcd"
ETCD_HARNESS=$ROOT/build/etcd/harness
i=0 differ=""
while IFS= read -r text; do
	i=$((i + 1))
	printf '%b' "$text" >"$TMP/bad/s$i"
	e=$("$ETCD_HARNESS" "$TMP/bad/s$i" 2>&1 >/dev/null; echo "exit $?")
	r=$("$HARNESS" "$TMP/bad/s$i" 2>&1 >/dev/null; echo "exit $?")
	[ "${e#etcd-harness: }" = "${r#raftrs-harness: }" ] || differ="$differ [$text] etcd: $e; raftrs: $r"
done <<'EOF'
drop 2<-2\n
compact 1\n
compact 1 +1\n
campaign 1\nconfig prevote on\n
config lease on\n
config prevote yes\n
config prevote on\nconfig prevote off\n
config election-tick 5\nconfig heartbeat-tick 5\n
config election-tick +5\nconfig heartbeat-tick 6\n
config election-tick 1001\n
config\n
partition 1 | 2\n
partition 1 2 3\n
partition 1 | 1 2 3\n
partition 1 | | 2 3\n
partition | 1 2 3\n
elect 1 2 3\ncrash 2\ntick 2\n
elect 1 2 3\nrestart 2\n
campaign 2\ndrop 3<-1\n
duplicate 1<-2\n
elect 1 2 3\npropose 1 a\npump\ncompact 1 2\ncompact 1 2\n
elect 1 2 3\nhold 2\nhold 2\n
elect 1 2 3\nrelease 2\n
elect 1 2 3\nhold 2\ncampaign 2\n
campaign +1\n
deliver 1<-2<-3\n
  # a comment\n\ncampaign 1 # c\r\nfoo\n
elect 1 2\n
add-node 1 6\n
apply 1\n
campaign 4\n
partition 1 2 | 3 4\n
elect 1 2 3\nadd-node 1 4\nadd-node 2 4\n
elect 1 2 3\nremove-node 1 3\npump\ncampaign 3\n
config apply-conf later\n
config forwarding maybe\n
config max-uncommitted-size 0\n
config apply-conf step\nelect 1 2 3\nremove-node 1 3\npump\ncompact 1 2\n
EOF
[ -z "$differ" ] && ok "$i bad lines: the same file:line and words as etcd's harness" ||
	not_ok "bad lines refused as etcd's harness refuses them" "$differ"

# The three-way differential on the same files: raft-rs's windows are
# etcd's, byte for byte, on the five; hashicorp's differ from both where
# docs/raft-differential.md says (the lost candidate).
for i in 1 2 3 4 5; do
	n=$(basename "$(ls "$TMP"/a/raftrs/0$i-*.ndjson)")
	same_bytes "$n: raft-rs's windows are etcd's" "$TMP/etcd/etcd/$n" "$TMP/a/raftrs/$n"
done
check "capture hashicorp of the same scenario files" "$CAPTURE" hashicorp --scenario all -o "$TMP/h"
"$ROOT/scripts/raft-differential" --offset B=1 "$TMP/etcd" "$TMP/h" "$TMP/a" >"$TMP/differ" 2>&1
grep -qx '== etcd vs raftrs' "$TMP/differ" && grep -qx '== hashicorp vs raftrs' "$TMP/differ" &&
	grep -qx '  only raftrs: candidate BecomeFollower' "$TMP/differ" &&
	[ "$(grep -cE '^equal pre-state, action and data: [1-9][0-9]* \([0-9]+ same transition, 0 different\)$' "$TMP/differ")" = 3 ] &&
	ok "differential: three pairs, every comparable window the same transition" ||
	not_ok "differential: three pairs" "$(head -n 12 "$TMP/differ")"
sed -n '/^== etcd vs raftrs/,/^==/p' "$TMP/differ" | grep -q 'in the other: [1-9]' &&
	not_ok "differential: no window of etcd or raftrs without its twin" "$(grep 'in the other' "$TMP/differ")" ||
	ok "differential: no window of etcd or raftrs without its twin"
