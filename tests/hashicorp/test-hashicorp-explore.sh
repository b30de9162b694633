#!/bin/bash
# capture hashicorp --explore: etcd's explorer (scenarios/etcd/driver/)
# over hashicorp's harness, tries drawn from hashicorp's own cluster
# state (scenarios/hashicorp/explore.go), served in one process under
# the probes and guided by Go's coverage of hashicorp's raft: the search
# ends (a generated step the harness refuses would end it with exit 6),
# keeps scenarios, and every scored window of their capture passes
# raft-next.js unwidened.
# needs: root btf go goproxy node python3
# locks: etcd
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin

check "capture hashicorp --explore --seed 1 --budget 40" \
	"$CAPTURE" hashicorp --explore --seed 1 --budget 40 -o "$TMP/x"
n=$(ls "$TMP/x/scenarios" 2>/dev/null | grep -c -- '-explored$')
[ "$n" -ge 5 ] && ok "the search kept scenarios ($n)" ||
	not_ok "the search kept scenarios" "$n kept"
grep -q 'capture hashicorp --explore: seed 1' "$TMP/x/scenarios/001-explored" &&
	ok "a kept scenario names its search" ||
	not_ok "a kept scenario names its search" "$(head -n 1 "$TMP/x/scenarios/001-explored")"
if "$CAPTURE" grade --json --exec "node $TESTS_DIR/graders/raft-next.js" "$TMP/x" >"$TMP/g.json" 2>"$TMP/g.err" &&
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["all"]; sys.exit(0 if a["failed"] == 0 and a["passed"] > 0 else 1)' "$TMP/g.json"; then
	ok "raft-next.js passes every scored window of the explored corpus"
else
	not_ok "raft-next.js passes every scored window" "$(head -c 400 "$TMP/g.json") $(tail -n 3 "$TMP/g.err")"
fi
grep -q '"system": "hashicorp"' "$TMP/x/MANIFEST.json" &&
	ok "the corpus is hashicorp's" || not_ok "the corpus is hashicorp's" "$(head -n 5 "$TMP/x/MANIFEST.json")"
expect_exit 2 "--budget without --explore is a usage error" "go with --explore" \
	"$CAPTURE" hashicorp --budget 3 --scenario all -o "$TMP/bad"
nothing_left "a usage error leaves no corpus" "$TMP/bad"
