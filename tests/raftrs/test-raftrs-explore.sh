#!/bin/bash
# capture raftrs --explore: etcd's explorer (scenarios/etcd/driver/) over
# the Rust harness, tries drawn from raft-rs's own cluster state by the
# harness's generator (scenarios/raftrs/src/generate.rs) and served in
# one process under the probes (serve.rs), guided by the audit classes
# alone (docs/raftrs.md): the search ends (a generated step the harness
# refuses would end it with exit 6), the same seed gives the same corpus
# byte for byte, capture verify passes, and raft-next.js fails no window
# of it that it does not fail on etcd's raft for the same scenarios.
# needs: root btf cargo crates go goproxy node python3
# locks: etcd
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin:$HOME/.cargo/bin
source "$TESTS_DIR/raft-lib.sh"

X="raftrs --explore --seed 1 --budget 60"
check "capture $X" "$CAPTURE" $X -o "$TMP/x"
explored raftrs "$TMP/x"
grep -q '"system": "raftrs"' "$TMP/x/MANIFEST.json" &&
	ok "the corpus is raftrs's" || not_ok "the corpus is raftrs's" "$(head -n 5 "$TMP/x/MANIFEST.json")"
cp -r "$TMP/x" "$TMP/x1"
check "the same search again" "$CAPTURE" $X -o "$TMP/x"
if diff -r "$TMP/x1" "$TMP/x" >"$TMP/diff" 2>&1; then
	ok "the same seed gives the same corpus, byte for byte"
else
	not_ok "the same seed gives the same corpus" "$(head -n 5 "$TMP/diff")"
fi
check "capture verify of the explored corpus" "$CAPTURE" verify --trust "$TMP/x"

# raft-next.js: every scored window passes but those it fails on etcd's
# raft too, for the same scenarios (a held node's heartbeat window that
# takes in a later term, docs/disagreements.md): the same failures.
check "capture etcd of the kept scenarios" \
	"$CAPTURE" etcd --scenarios "$TMP/x/scenarios" --scenario all -o "$TMP/e"
"$CAPTURE" grade --json --exec "$RAFT_GRADER" "$TMP/x" >"$TMP/g.json" 2>"$TMP/g.err"
py 'r["all"]["passed"] > 0 and r["all"]["passed"] + r["all"]["failed"] == r["all"]["windows"] - r["all"]["unscoreable"]' "$TMP/g.json" &&
	ok "raft-next.js scores the explored corpus" ||
	not_ok "raft-next.js scores the explored corpus" "$(head -c 400 "$TMP/g.json") $(tail -n 3 "$TMP/g.err")"
f=$(fails "$TMP/x" | sed 's/^/  /')
[ "$(fails "$TMP/x")" = "$(fails "$TMP/e")" ] &&
	ok "raft-next.js fails raft-rs's windows only where it fails etcd's ($(fails "$TMP/x" | grep -c .))" ||
	not_ok "raft-next.js fails raft-rs's windows only where it fails etcd's" "raftrs:
$f
etcd:
$(fails "$TMP/e")"

expect_exit 2 "--budget without --explore is a usage error" "go with --explore" \
	"$CAPTURE" raftrs --budget 3 --scenario all -o "$TMP/bad"
nothing_left "a usage error leaves no corpus" "$TMP/bad"
expect_exit 2 "--binary with --explore is a usage error" "--binary does not go with --explore" \
	"$CAPTURE" raftrs --explore --binary /bin/true -o "$TMP/bad"
nothing_left "--binary with --explore leaves no corpus" "$TMP/bad"

# The harness's -serve (serve.rs): a refused try ends that try, not the
# process, saying why unless quiet; the tries after it run.
HARNESS=$ROOT/build/raftrs/debug/harness
printf 'elect 1 2 3\nrestart 2\n' >"$TMP/refused"
printf 'elect 1 2 3\n' >"$TMP/fine"
printf '\tquiet\t%s\n\t\t%s\n\t\t%s\t%s\n' "$TMP/refused" "$TMP/refused" "$TMP/fine" "$TMP/steps" |
	"$HARNESS" -serve >"$TMP/serve.out" 2>"$TMP/serve.err"
rc=$?
[ "$rc" = 0 ] && [ ! -s "$TMP/serve.out" ] &&
	[ "$(cat "$TMP/serve.err")" = "raftrs-harness: $TMP/refused:2: node 2 is not crashed" ] &&
	ok "-serve: a refused try ends the try, said once (not quiet), the next runs" ||
	not_ok "-serve: a refused try ends the try" "exit $rc; $(head -c 300 "$TMP/serve.err")"
