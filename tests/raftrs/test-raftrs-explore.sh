#!/bin/bash
# capture raftrs --explore: etcd's explorer (scenarios/etcd/driver/) over
# the Rust harness, tries drawn from raft-rs's own cluster state by the
# harness's generator (scenarios/raftrs/src/generate.rs) and served in
# one process under the probes (serve.rs), guided by the audit classes
# alone (docs/raftrs.md): the search ends (a generated step the harness
# refuses would end it with exit 6), the same seed gives the same corpus
# byte for byte, capture verify passes, and raft-next.js passes every
# scored window.
# needs: root btf cargo crates go goproxy node python3
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin:$HOME/.cargo/bin
source "$TESTS_DIR/raft/lib.sh"

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

# raft-next.js passes every scored window (docs/results/raftrs.md).
"$CAPTURE" grade --json --exec "$RAFT_GRADER" "$TMP/x" >"$TMP/g.json" 2>"$TMP/g.err"
py 'r["all"]["passed"] > 0 and r["all"]["failed"] == 0 and r["all"]["passed"] == r["all"]["windows"] - r["all"]["unscoreable"]' "$TMP/g.json" &&
	ok "raft-next.js passes every scored window of the explored corpus" ||
	not_ok "raft-next.js passes every scored window of the explored corpus" "$(fails "$TMP/x" | head -n 5) $(tail -n 3 "$TMP/g.err")"

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
