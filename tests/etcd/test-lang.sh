#!/bin/bash
# The etcd scenario language beyond the reference scenarios: the scenarios
# of tests/raft/scenarios (one or more per new word) on both capture
# paths, each twice, and every kind of bad line refused with file:line.
# The five reference scenarios are checked by tests/etcd/test-capture.sh.
# needs: root btf go goproxy python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/etcd/paths.sh"
export PATH=$PATH:/usr/local/go/bin
HERE=$TESTS_DIR/etcd
SCEN=$TESTS_DIR/raft/scenarios


check "ebpf capture of the language scenarios" \
	$CAPTURE etcd --scenarios "$SCEN" --scenario all -o "$TMP/a"
check "second ebpf capture" \
	$CAPTURE etcd --scenarios "$SCEN" --scenario all -o "$TMP/b"
if diff -r "$TMP/a" "$TMP/b" >"$TMP/diff" 2>&1; then
	ok "two ebpf captures byte-identical (windows, events, raw, manifest)"
else
	not_ok "two ebpf captures byte-identical" "$(head -n 3 "$TMP/diff")"
fi

check "with_tla trace capture" \
	$CAPTURE etcd --scenarios "$SCEN" --scenario all --via trace -o "$TMP/t"
check "second with_tla trace capture" \
	$CAPTURE etcd --scenarios "$SCEN" --scenario all --via trace -o "$TMP/u"
if diff -r "$TMP/t" "$TMP/u" >"$TMP/diff" 2>&1; then
	ok "two trace captures byte-identical"
else
	not_ok "two trace captures byte-identical" "$(head -n 3 "$TMP/diff")"
fi

same_paths "$TMP/a" "$TMP/t"

# Every receipt the probes trace has its traced send before it (the causal
# check a live run makes), a rejected pre-vote's response of a higher term
# included; a scenario that duplicates a message receives it twice.
for f in "$SCEN"/[0-9][0-9]-*; do
	n=$(basename "$f")
	grep -q '^duplicate ' "$f" && continue
	if out=$(python3 "$TESTS_DIR/etcd/check-live.py" --any "$TMP/a/raw/$n.ndjson"); then
		ok "every traced receipt of $n was sent"
	else
		not_ok "every traced receipt of $n was sent" "$out"
	fi
done
n=$(ls "$TMP"/a/etcd/*.ndjson | wc -l)
[ "$n" = "$(ls "$SCEN" | wc -l)" ] && [ "$n" -ge 7 ] && ok "$n language scenarios, one window file each" ||
	not_ok "language scenarios" "$n window files for $(ls "$SCEN" | wc -l) scenarios"

# What each scenario's words made raft do, read from the windows.
python3 "$HERE/word-effects.py" "$TMP/a/etcd"

# Every word of the language appears in some scenario.
for w in config deliver-one drop duplicate reverse partition heal crash \
	 restart compact campaign propose tick deliver pump elect hold release \
	 add-node remove-node apply; do
	if grep -Eqh "^$w( |$)" "$SCEN"/[0-9][0-9]-*; then
		ok "word $w exercised"
	else
		not_ok "word $w exercised" "no scenario line starts with it"
	fi
done

# Bad lines: the harness exits 3 naming file:line, and capture refuses the
# scenario with exit 3 and leaves no corpus.
HARNESS=$ROOT/build/etcd/harness
bad() {
	local name=$1 line=$2 pattern=$3 text=$4
	mkdir -p "$TMP/bad-$name"
	printf '%b' "$text" >"$TMP/bad-$name/01-bad"
	expect_exit 3 "harness refuses $name" "01-bad:$line: $pattern" \
		"$HARNESS" "$TMP/bad-$name/01-bad"
}
bad "an unknown word" 2 'unknown step "deliver-all"' 'elect 1 2 3\ndeliver-all 2<-1\n'
bad "a bad link" 1 'expected T<-F' 'drop 2<-2\n'
bad "a missing argument" 1 'compact takes 2 argument' 'compact 1\n'
bad "a bad index" 1 'bad index "0"' 'compact 1 0\n'
bad "config after a step" 2 'config belongs in the header' 'campaign 1\nconfig prevote on\n'
bad "an unknown config key" 1 'unknown config key "lease"' 'config lease on\n'
bad "a bad config value" 1 'config prevote: bad value "yes"' 'config prevote yes\n'
bad "a repeated config key" 2 'config prevote given twice' 'config prevote on\nconfig prevote off\n'
bad "heartbeat not below election" 2 'heartbeat-tick 5 must be below election-tick 5' \
	'config election-tick 5\nconfig heartbeat-tick 5\npump\n'
bad "a partition leaving a node out" 1 'partition leaves out node 3' 'partition 1 | 2\n'
bad "a partition of one group" 1 'partition takes two or more groups' 'partition 1 2 3\n'
bad "a repeated node in a partition" 1 'bad or repeated node id "1"' 'partition 1 | 1 2 3\n'
bad "an empty partition group" 1 'empty group' 'partition 1 | | 2 3\n'
# Refused while running: the step is well formed, the cluster cannot do it.
bad "a step on a crashed node" 3 'node 2 is crashed' 'elect 1 2 3\ncrash 2\ntick 2\n'
bad "a restart of a live node" 2 'node 2 is not crashed' 'elect 1 2 3\nrestart 2\n'
bad "dropping a message not queued" 2 'no message from 1 queued for 3' 'campaign 2\ndrop 3<-1\n'
bad "duplicating a message not queued" 1 'no message from 2 queued for 1' 'duplicate 1<-2\n'
bad "compacting beyond what is applied" 3 'compact 1 2: node 1 has applied only up to 1' \
	'elect 1 2 3\npropose 1 a\ncompact 1 2\n'  # entry 2 not yet committed
bad "compacting twice at one index" 5 'compact 1 2: requested index is older' \
	'elect 1 2 3\npropose 1 a\npump\ncompact 1 2\ncompact 1 2\n'
bad "a hold of a held node" 3 'node 2 is held already' 'elect 1 2 3\nhold 2\nhold 2\n'
bad "a release of a node not held" 2 'node 2 is not held' 'elect 1 2 3\nrelease 2\n'
bad "a campaign of a held node" 3 'node 2 is held: release it first' 'elect 1 2 3\nhold 2\ncampaign 2\n'
bad "a crash of a held node" 3 'node 2 is held: release it first' 'elect 1 2 3\nhold 2\ncrash 2\n'
bad "a proposal with no leader" 1 'propose 2: raft proposal dropped' 'propose 2 x\n'
bad "a bad max-uncommitted-size" 1 'config max-uncommitted-size: bad value "0"' \
	'config max-uncommitted-size 0\n'
bad "a bad apply-conf" 1 'config apply-conf: bad value "later"' 'config apply-conf later\n'
bad "an add-node past the last id" 1 'bad node id "6"' 'add-node 1 6\n'
bad "a step on a node not started" 2 'node 4 is not in the cluster' 'elect 1 2 3\ncampaign 4\n'
bad "an add-node of a node started" 2 'add-node 1 3: node 3 was started already' \
	'elect 1 2 3\nadd-node 1 3\n'
bad "a partition leaving out a joined node" 3 'partition leaves out node 4' \
	'elect 1 2 3\nadd-node 1 4\npartition 1 | 2 3\n'
bad "an apply with nothing committed" 2 'apply 1: node 1 has no committed conf change' \
	'elect 1 2 3\napply 1\n'
bad "a compaction over a conf change not applied" 7 'compact 1 3: node 1 has not applied the conf change at 2' \
	'config apply-conf step\nelect 1 2 3\nremove-node 1 3\npump\npropose 1 a\npump\ncompact 1 3\n'
expect_exit 3 "capture refuses a bad scenario" 'bad scenario' \
	$CAPTURE etcd --scenarios "$TMP/bad-an unknown word" --scenario all \
	--via trace -o "$TMP/x1"
nothing_left "a refused scenario leaves no corpus" "$TMP/x1"
expect_exit 2 "a missing scenario directory is a usage error" 'cannot open the scenario directory' \
	$CAPTURE etcd --scenarios "$TMP/none" --scenario all --via trace -o "$TMP/x2"
nothing_left "a missing scenario directory leaves no corpus" "$TMP/x2"

# The folder's checks on what the new words make raft do: a restart must
# keep the durable state (a log of 1 is below node 3's loaded commit), and
# a cut log never drops a committed entry.
# tamper IN OUT NID FIELD VALUE N: set FIELD of node NID's Nth event after
# its second InitState (its restart) to VALUE; prints that event's line.
tamper() {
	python3 - "$@" <<'PY'
import json, sys
src, dst, nid, field, value, nth = sys.argv[1:]
lines = open(src).read().splitlines()
inits, seen, at = 0, 0, None
for i, l in enumerate(lines):
    ev = json.loads(l)
    if ev["nid"] != nid:
        continue
    inits += ev["name"] == "InitState"
    if inits >= 2:
        if seen == int(nth):
            at = i
            break
        seen += 1
ev = json.loads(lines[at])
(ev["state"] if field in ev["state"] else ev)[field] = int(value)
lines[at] = json.dumps(ev, separators=(",", ":"))
open(dst, "w").write("\n".join(lines) + "\n")
print(at + 1)
PY
}
# Node 3's restart: InitState, ApplyConfChange, then BecomeFollower.
line=$(tamper "$TMP/t/raw/12-crash-restart.ndjson" "$TMP/lost-term" 3 term 0 2)
expect_exit 4 "a restart that loses the term is refused" \
	"lost-term:$line: node 3 restarts without its durable state" \
	$CAPTURE fold etcd "$TMP/lost-term" -o "$TMP/x3"
line=$(tamper "$TMP/t/raw/12-crash-restart.ndjson" "$TMP/lost-log" 3 log 1 2)
expect_exit 4 "a restart that loses log entries its loaded commit covers is refused" \
	"lost-log:$line: node 3 restarts without its durable state" \
	$CAPTURE fold etcd "$TMP/lost-log" -o "$TMP/x4"
# Node 1's log is cut from 5 to 4 in its HandleAppendEntries (commit 2):
# a cut to 1 would drop committed entry 2.
python3 - "$TMP/t/raw/11-partition.ndjson" "$TMP/cut-commit" <<'PY' >"$TMP/line"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
prev = None
for i, l in enumerate(lines):
    ev = json.loads(l)
    if ev["nid"] != "1":
        continue
    if prev is not None and ev["log"] < prev:
        ev["log"] = 1
        lines[i] = json.dumps(ev, separators=(",", ":"))
        print(i + 1)
        break
    prev = ev["log"]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
expect_exit 4 "a log cut below the commit index is refused" \
	"cut-commit:$(cat "$TMP/line"): node 1 goes back" \
	$CAPTURE fold etcd "$TMP/cut-commit" -o "$TMP/x5"
# A trace cut inside a restart (its 4th InitState: node 3's restart).
line=$(grep -n '"name":"InitState"' "$TMP/t/raw/12-crash-restart.ndjson" | sed -n 4p | cut -d: -f1)
head -n "$line" "$TMP/t/raw/12-crash-restart.ndjson" >"$TMP/cut-restart"
expect_exit 4 "a trace ending inside a restart is refused" \
	"cut-restart:$line: the input ends inside node 3's restart" \
	$CAPTURE fold etcd "$TMP/cut-restart" -o "$TMP/x6"
nothing_left "a refused fold leaves no corpus" "$TMP/x6"
