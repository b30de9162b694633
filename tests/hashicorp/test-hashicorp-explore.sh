#!/bin/bash
# capture hashicorp --explore: etcd's explorer (scenarios/etcd/driver/)
# over hashicorp's harness, tries drawn from hashicorp's own cluster
# state (scenarios/hashicorp/explore.go), served in one process under
# the probes and guided by the audit classes of its windows: the search
# ends (a generated step the harness refuses would end it with exit 6),
# keeps scenarios, and every scored window of their capture passes
# raft-next.js unwidened.
# needs: root btf go goproxy node python3
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
source "$TESTS_DIR/raft/lib.sh"

check "capture hashicorp --explore --seed 1 --budget 20" \
	"$CAPTURE" hashicorp --explore --seed 1 --budget 20 -o "$TMP/x"
explored hashicorp "$TMP/x"
if "$CAPTURE" grade --json --exec "node $TESTS_DIR/graders/raft-next.js" "$TMP/x" >"$TMP/g.json" 2>"$TMP/g.err" &&
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["all"]; sys.exit(0 if a["failed"] == 0 and a["passed"] > 0 else 1)' "$TMP/g.json"; then
	ok "raft-next.js passes every scored window of the explored corpus"
else
	not_ok "raft-next.js passes every scored window" "$(head -c 400 "$TMP/g.json") $(tail -n 3 "$TMP/g.err")"
fi
grep -q '"system": "hashicorp"' "$TMP/x/MANIFEST.json" &&
	ok "the corpus is hashicorp's" || not_ok "the corpus is hashicorp's" "$(head -n 5 "$TMP/x/MANIFEST.json")"
# A mutation's prefix may be one of the explorer's scripted moves,
# etcd's, whose fourth node joins: the generator drops the steps that
# name a node this cluster has not, as it drops those the state does not
# allow, instead of refusing the line (it ended a --seed 2 search).
printf 'config prevote on\nconfig checkquorum off\nconfig election-tick 3\nconfig apply-conf step\nelect 2 3 1\nadd-node 2 4\npump\napply 2\ndeliver 4<-2\ntick 2\n' >"$TMP/four"
if "$ROOT/build/hashicorp/harness" -generate 1 5 "$TMP/four.out" "$TMP/four.map" "$TMP/four" 6 2>"$TMP/four.err" &&
	grep -qx 'elect 2 3 1' "$TMP/four.out" && grep -qx 'config apply-conf ready' "$TMP/four.out" &&
	! grep -q '4' "$TMP/four.out"; then
	ok "a prefix naming a fourth node: its steps dropped, the rest replayed"
else
	not_ok "a prefix naming a fourth node" "$(tail -n 2 "$TMP/four.err") $(tr '\n' ';' <"$TMP/four.out" 2>/dev/null)"
fi

# Two searches of one seed keep the same corpus: the guidance is the
# classes of the windows alone, which the harness's settle makes the same
# in every capture (Go's hit counts of raft's statements are not:
# docs/hashicorp.md, "Exploration").
check "the same search again" \
	"$CAPTURE" hashicorp --explore --seed 1 --budget 20 -o "$TMP/x2"
if diff -r -x MANIFEST.json "$TMP/x" "$TMP/x2" >"$TMP/xdiff" 2>&1 &&
	diff <(grep -v '"/' "$TMP/x/MANIFEST.json") <(grep -v '"/' "$TMP/x2/MANIFEST.json") >>"$TMP/xdiff"; then
	ok "two searches of one seed keep the same corpus, byte for byte"
else
	not_ok "two searches of one seed keep the same corpus" "$(head -n 4 "$TMP/xdiff")"
fi

expect_exit 2 "--budget without --explore is a usage error" "go with --explore" \
	"$CAPTURE" hashicorp --budget 3 --scenario all -o "$TMP/bad"
nothing_left "a usage error leaves no corpus" "$TMP/bad"
