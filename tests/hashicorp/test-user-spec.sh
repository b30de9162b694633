#!/bin/bash
# A second, user-style spec of HashiCorp's raft (tests/hashicorp/user.probes),
# written from `capture go --describe` and docs/probe-spec.md alone: every symbol
# and field it names appears in --describe's output for the harness
# binary (check-described.py, which refuses a planted name and the
# source-read raft.probes); run by `capture go` on each of etcd's five
# scenarios, folded by `capture fold hashicorp` with no adapter, its
# windows pass raft-next.js and equal those of the system's own spec.
# needs: root btf go goproxy node python3
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
D=$TESTS_DIR/hashicorp
BIN=$ROOT/build/hashicorp/harness
CHECK="python3 $D/check-described.py $CAPTURE $BIN"

check "capture hashicorp --scenario all (builds the harness)" \
	"$CAPTURE" hashicorp --scenario all -o "$TMP/ref"
if out=$($CHECK "$D/user.probes" 2>&1); then
	ok "every name of user.probes is in capture go --describe's output"
else
	not_ok "every name of user.probes is in --describe's output" "$out"
fi
sed 's/R\.commitIndex/R.votedFor/' "$D/user.probes" >"$TMP/planted.probes"
$CHECK "$TMP/planted.probes" >/dev/null 2>&1 &&
	not_ok "a name --describe does not show is found" "check-described.py passed it" ||
	ok "a name --describe does not show is found"
$CHECK "$ROOT/scenarios/hashicorp/raft.probes" >/dev/null 2>&1 &&
	not_ok "raft.probes (read from the source) is not --describe's alone" "passed" ||
	ok "raft.probes (read from the source) is not --describe's alone"

same=0 differ=""
for f in "$ROOT"/scenarios/etcd/0[1-5]-*; do
	s=$(basename "$f")
	"$CAPTURE" go --probes "$D/user.probes" -o "$TMP/u-$s" -- "$BIN" "$f" \
		>/dev/null 2>"$TMP/go.err" || not_ok "capture go of $s" "$(tail -n 2 "$TMP/go.err")"
	"$CAPTURE" fold hashicorp "$TMP/u-$s/events/harness.ndjson" -o "$TMP/f-$s" \
		>/dev/null 2>"$TMP/fold.err" || not_ok "fold of $s" "$(tail -n 2 "$TMP/fold.err")"
	if cmp -s "$TMP/ref/hashicorp/$s.ndjson" "$TMP/f-$s/hashicorp/harness.ndjson"; then
		same=$((same + 1))
	else
		differ+="$s: $(kept "$s" "$TMP/ref" "$TMP/u-$s" "$TMP/f-$s")"$'\n'
		differ+="$(first_difference "$TMP/ref/hashicorp/$s.ndjson" "$TMP/f-$s/hashicorp/harness.ndjson")"$'\n'
	fi
	mkdir -p "$TMP/all/hashicorp"
	cp "$TMP/f-$s/hashicorp/harness.ndjson" "$TMP/all/hashicorp/$s.ndjson"
done
if "$CAPTURE" grade --json --exec "node $TESTS_DIR/graders/raft-next.js" "$TMP/all/hashicorp" >"$TMP/g.json" 2>"$TMP/g.err" &&
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["all"]; sys.exit(0 if a["failed"] == 0 and a["passed"] == a["windows"] - a["unscoreable"] > 0 else 1)' "$TMP/g.json"; then
	ok "raft-next.js passes every scored window of the user spec's five scenarios"
else
	not_ok "raft-next.js passes every scored window of the user spec" "$(head -c 400 "$TMP/g.json") $(tail -n 3 "$TMP/g.err")"
fi
[ "$same" = 5 ] && ok "its windows equal raft.probes' on all five scenarios" ||
	not_ok "its windows equal raft.probes' on all five scenarios" "$same of 5; ${differ%$'\n'}"
