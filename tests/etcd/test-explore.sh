#!/bin/bash
# capture etcd --explore, --merge and the fold's safety checks: a short
# exploration is deterministic, reads raft's coverage (its parents kept out
# of the corpus), verifies, replays one scenario and is the same by eBPF;
# two shards merge into one corpus that covers what both do; a harness
# whose trace says a term went back is caught at the scenario's line; a
# tick that could reach raft's random election timeout is refused.
# needs: root btf go goproxy python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/etcd/paths.sh"
export PATH=$PATH:/usr/local/go/bin
HERE=$TESTS_DIR/etcd


# coverage LINE of capture audit: "coverage: K/N reachable covered ..."
coverage() { "$CAPTURE" audit "$@" | sed -n 's/^coverage: \([0-9]*\/[0-9]*\).*/\1/p'; }

X="$CAPTURE etcd --explore --seed 3 --budget 16 --via trace"
mkdir "$TMP/work"
check "explore (trace)" env TMPDIR="$TMP/work" $X -o "$TMP/x"
[ -z "$(ls -A "$TMP/work")" ] && ok "the exploration leaves no work files" ||
	not_ok "the exploration leaves no work files" "$(ls "$TMP/work")"
cp -r "$TMP/x" "$TMP/x1"
if $X -o "$TMP/x" 2>"$TMP/x.err"; then ok "explore again"; else
	not_ok "explore again" "$(tail -n 3 "$TMP/x.err")"; fi
if diff -r "$TMP/x1" "$TMP/x" >"$TMP/diff" 2>&1; then
	ok "the same seed gives the same corpus, byte for byte"
else
	not_ok "the same seed gives the same corpus" "$(head -n 3 "$TMP/diff")"
fi
n=$(ls "$TMP/x/scenarios" | wc -l)
[ "$n" -ge 3 ] && [ "$n" = "$(ls "$TMP/x/etcd" | wc -l)" ] &&
	ok "$n scenarios kept, one window file each" ||
	not_ok "scenarios kept" "$n scenarios, $(ls "$TMP/x/etcd" | wc -l) window files"
# The second signal: raft's own counters, read per guided try; the tries
# kept for them alone are parents, not output.
set -- $(sed -n 's/.*explore: raft units run \([0-9]*\)\/\([0-9]*\), (unit, hit count) pairs \([0-9]*\); \([0-9]*\) parents.*/\1 \2 \3 \4/p' "$TMP/x.err")
if [ $# = 4 ] && [ "$1" -gt 0 ] && [ "$1" -le "$2" ] && [ "$3" -ge "$1" ] && [ "$4" -gt 0 ]; then
	ok "the guided tries read raft's coverage ($1/$2 units, $3 (unit, hit count) pairs, $4 parents)"
else
	not_ok "the guided tries read raft's coverage" "$(grep 'explore: raft units' "$TMP/x.err")"
fi
kept=$(sed -n 's/.*explore: explored: tried 16, kept \([0-9]*\),.*/\1/p' "$TMP/x.err")
[ -n "$kept" ] && [ "$kept" = "$n" ] && ok "the parents are not in the corpus ($n scenarios)" ||
	not_ok "the parents are not in the corpus" "$kept kept, $n scenario files"
grep -q '^# capture etcd --explore: seed 3, shard 1/1; adds:' "$TMP/x/scenarios/001-explored" &&
	ok "a kept scenario says what it adds" ||
	not_ok "a kept scenario says what it adds" "$(head -n 2 "$TMP/x/scenarios/001-explored")"
# Its scenario files are kept in the corpus, outside the checkout: the
# rerun of someone else's would run theirs, so verify needs --trust.
check "verify the explored corpus" "$CAPTURE" verify --trust "$TMP/x"

# Another seed explores otherwise.
check "explore with another seed" \
	"$CAPTURE" etcd --explore --seed 4 --budget 16 --via trace -o "$TMP/y"
# The unguided baseline runs no coverage signal.
"$CAPTURE" etcd --explore --seed 4 --budget 8 --via trace --unguided \
	-o "$TMP/u" >/dev/null 2>"$TMP/u.err"
grep -q 'explore: explored: tried 8,' "$TMP/u.err" && ! grep -q 'raft units' "$TMP/u.err" &&
	ok "the unguided search reads no coverage" ||
	not_ok "the unguided search reads no coverage" "$(grep 'explore:' "$TMP/u.err" | tail -n 2)"
if diff -rq "$TMP/x/scenarios" "$TMP/y/scenarios" >/dev/null; then
	not_ok "another seed, other scenarios" "seeds 3 and 4 kept the same scenarios"
else
	ok "another seed, other scenarios"
fi

# One kept scenario replayed by file, on both paths.
f=$TMP/x/scenarios/002-explored
check "replay one kept scenario (trace)" \
	"$CAPTURE" etcd --scenario "$f" --via trace -o "$TMP/one"
same_bytes "replayed windows = explored windows" \
	"$TMP/one/etcd/002-explored.ndjson" "$TMP/x/etcd/002-explored.ndjson"
check "the kept scenarios by eBPF" \
	"$CAPTURE" etcd --scenarios "$TMP/x/scenarios" --scenario all -o "$TMP/e"
same_paths "$TMP/e" "$TMP/x"
check "verify the eBPF corpus" "$CAPTURE" verify --trust "$TMP/e"

# Two shards of one seed, merged.
for k in 1 2; do
	check "explore shard $k/2" "$CAPTURE" etcd --explore --seed 5 \
		--budget 12 --shard $k/2 --via trace -o "$TMP/s$k"
done
if diff -rq "$TMP/s1/scenarios" "$TMP/s2/scenarios" >/dev/null; then
	not_ok "shards explore apart" "shards 1 and 2 kept the same scenarios"
else
	ok "shards explore apart"
fi
check "merge the shards" "$CAPTURE" etcd --merge "$TMP/s1" "$TMP/s2" \
	--via trace -o "$TMP/m"
both=$(coverage "$TMP/s1" "$TMP/s2")
merged=$(coverage "$TMP/m")
[ -n "$both" ] && [ "$both" = "$merged" ] &&
	ok "the merged corpus covers what both shards do ($merged)" ||
	not_ok "merged coverage" "shards together $both, merged $merged"
check "verify the merged corpus" "$CAPTURE" verify --trust "$TMP/m"
# An output is never an input: -o one of the merged corpora
# would replace that shard with the merge.
cp -r "$TMP/s2" "$TMP/s2-kept"
for o in "$TMP/s2" "$TMP/s2/scenarios/m" "$TMP"; do
	expect_exit 2 "--merge A B -o ${o#$TMP}: refused" \
		"output $o (would replace|lies inside) input $TMP/s[12]: give another output" \
		"$CAPTURE" etcd --merge "$TMP/s1" "$TMP/s2" --via trace -o "$o"
done
diff -r "$TMP/s2" "$TMP/s2-kept" >/dev/null && ok "--merge A B -o B: shard B as it was" ||
	not_ok "--merge A B -o B: shard B as it was" "$(diff -rq "$TMP/s2" "$TMP/s2-kept" | head -n 3)"
grep -q '"--scenarios",' "$TMP/m/MANIFEST.json" &&
	ok "the merged manifest records the replay of its scenarios" ||
	not_ok "merged manifest" "no --scenarios in its command"

# The seeded bug: node 2's term goes back by one in the trace.
bug=$TMP/harness-seeded-bug
if go -C "$ROOT/scenarios/etcd" build -trimpath -buildvcs=false -mod=readonly \
	-tags with_tla,seeded_bug -o "$bug" . 2>"$TMP/go.err"; then
	ok "build the seeded-bug harness"
else
	not_ok "build the seeded-bug harness" "$(tail -n 2 "$TMP/go.err")"
fi
expect_exit 4 "a term going back fails the fold at the scenario's line" \
	'scenarios/etcd/05-second-election:[0-9]+: node 2 goes back: term [0-9]+->[0-9]+, .*\(.*raw/05-second-election.ndjson:[0-9]+\)' \
	"$CAPTURE" etcd --via trace --binary "$bug" --scenario second-election -o "$TMP/bug"
nothing_left "the seeded bug leaves no corpus" "$TMP/bug"
# The same trace folded by itself names the trace line.
"$bug" "$ROOT/scenarios/etcd/05-second-election" >"$TMP/bug.ndjson" 2>/dev/null
expect_exit 4 "capture fold of the seeded-bug trace names its line" \
	'bug.ndjson:[0-9]+: node 2 goes back' \
	"$CAPTURE" fold etcd "$TMP/bug.ndjson" -o "$TMP/bugfold"

# A mutation's prefix, composed of kept scenarios' steps, drops the steps
# the state no longer allows (nothing queued, a second crash, a tick that
# could reach the random timeout) and replays to the trace it wrote.
h=$TMP/harness-tla
if go -C "$ROOT/scenarios/etcd" build -trimpath -buildvcs=false -mod=readonly \
	-tags with_tla -o "$h" . 2>"$TMP/go.err"; then
	printf '%s\n' 'config election-tick 3' 'elect 1 2 3' 'deliver-one 2<-1' \
		'crash 3' 'crash 1' 'tick 2' 'tick 2' 'tick 2' >"$TMP/prefix"
	if "$h" -generate 7 0 "$TMP/gen" "$TMP/gen.map" "$TMP/prefix" 7 \
		>"$TMP/gen.trace" 2>"$TMP/gen.err"; then
		same_bytes "a prefix keeps the steps the state allows" \
			<(printf '%s\n' 'config election-tick 3' 'elect 1 2 3' \
				'crash 3' 'tick 2' 'tick 2') "$TMP/gen"
		"$h" "$TMP/gen" >"$TMP/gen.replay" 2>&1
		same_bytes "the composed scenario replays to its trace" \
			"$TMP/gen.trace" "$TMP/gen.replay"
	else
		not_ok "generate from a composed prefix" "$(tail -n 2 "$TMP/gen.err")"
	fi
	# The scripted moves are the language scenarios 17-27 and 30 (mutate.c):
	# each passes the generator's filter whole (hold, release, drop
	# where queued) and gives the trace the language scenario gives.
	for f in "$ROOT"/tests/raft/scenarios/{17,18,19,20,21,22,23,24,25,26,27,30}-*; do
		name=$(basename "$f")
		sed 's/#.*//; s/[[:space:]]*$//; /^$/d' "$f" >"$TMP/$name.steps"
		k=$(grep -vc '^config' "$TMP/$name.steps")
		"$h" -generate 1 0 "$TMP/$name.gen" "$TMP/$name.map" "$f" "$k" \
			>"$TMP/$name.trace" 2>"$TMP/gen.err" || not_ok "generate $name" "$(tail -n 2 "$TMP/gen.err")"
		"$h" "$f" >"$TMP/$name.replay" 2>&1
		cmp -s "$TMP/$name.steps" "$TMP/$name.gen" && cmp -s "$TMP/$name.trace" "$TMP/$name.replay" &&
			ok "the generator keeps every step of $name and gives its trace" ||
			not_ok "the generator keeps every step of $name" "$(diff "$TMP/$name.steps" "$TMP/$name.gen" | head -n 4)"
	done
else
	not_ok "build the with_tla harness" "$(tail -n 2 "$TMP/go.err")"
fi

# Leader completeness: a leader whose log lacks a committed entry.
python3 "$HERE/drop-leader-log.py" "$TMP/x1/raw/001-explored.ndjson" >"$TMP/lc.ndjson"
expect_exit 4 "a leader without a committed entry is refused" \
	'lc.ndjson:[0-9]+: node [0-9]+ leads term [0-9]+ with a log of [0-9]+ entries, but [0-9]+ were committed in earlier terms' \
	"$CAPTURE" fold etcd "$TMP/lc.ndjson" -o "$TMP/lcfold"

# A tick that could reach the randomized election timeout is refused.
printf 'config election-tick 3\nelect 1 2 3\ntick 2\ntick 2\ntick 2\n' >"$TMP/01-ticks"
expect_exit 3 "a follower's third tick of three is refused at its line" \
	'01-ticks:5: tick 2: node 2 has ticked 2 time\(s\)' \
	"$CAPTURE" etcd --scenario "$TMP/01-ticks" --via trace -o "$TMP/ticks"

# Usage.
expect_exit 2 "--explore with --scenario" '' \
	"$CAPTURE" etcd --explore --scenario all -o "$TMP/u1"
expect_exit 2 "--shard 3/2" 'K/N' \
	"$CAPTURE" etcd --explore --shard 3/2 -o "$TMP/u2"
expect_exit 2 "--merge without corpora" '' "$CAPTURE" etcd --merge -o "$TMP/u3"
expect_exit 2 "--merge of a corpus without scenarios" 'no scenarios directory' \
	"$CAPTURE" etcd --merge "$TMP/one" --via trace -o "$TMP/u4"
# By eBPF, --merge of what is no explored corpus is refused before the
# probed harness starts: no engine thread attaching meets the refusal's
# exit.
for what in "$TMP/one" "$TMP/nowhere"; do
	expect_exit 2 "--merge (ebpf) of $(basename "$what"), no explored corpus" \
		'no scenarios directory' "$CAPTURE" etcd --merge "$TMP/s1" "$what" -o "$TMP/u7"
	grep -q 'probed harness\|uprobes attached' "$TMP/.stderr" &&
		not_ok "--merge (ebpf) of $(basename "$what"): refused before any harness starts" \
			"$(grep -m1 'probed harness\|uprobes attached' "$TMP/.stderr")" ||
		ok "--merge (ebpf) of $(basename "$what"): refused before any harness starts"
done
expect_exit 2 "a missing scenario file" 'no such scenario file' \
	"$CAPTURE" etcd --scenario "$TMP/nowhere/01-x" --via trace -o "$TMP/u5"
expect_exit 2 "a seed that is no number" 'seed' \
	"$CAPTURE" etcd --explore --seed x1 --via trace -o "$TMP/u6"
