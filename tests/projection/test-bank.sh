#!/bin/bash
# The toy bank (tests/go/bank) gets windows from a spec alone
# (tests/projection/bank.probes: its probes and its projection): captured
# twice with a fixed schedule (-turns), byte-identical; each Transfer
# window the bank's own log line; verify, check, the declared audit,
# every form back to the same bytes; graded by a next() written from the
# bank's documentation, and a planted wrong one (a fee the payer pays)
# fails.
# needs: root btf go node python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/go/bank.sh"
source "$TESTS_DIR/projection/projection-lib.sh"
P=$TESTS_DIR/projection
SPEC=$P/bank.probes
build -o "$TMP/bank" .
cd "$TMP" || exit 1
BANK="./bank -turns -procs 2 -workers 3 -transfers 20"

twice "" go "$SPEC" $BANK
if out=$(python3 - a a.log <<'PY' 2>&1
import json, re, sys
w = [json.loads(l) for l in open(sys.argv[1] + "/bank/bank.ndjson")]
log = {}
for l in open(sys.argv[2]):
    m = re.match(r"proc (\d+) transfer \d+ from (\d+) to (\d+) amount (\d+) fee (\S+) ok (\w+) balances (\S+)", l)
    if m:
        log.setdefault(int(m[1]), []).append(m)
t = {}
for x in w:
    if x["action"] == "Transfer":
        t.setdefault(x["data"]["bank"], []).append(x)
assert sorted(t) == sorted(log) == [0, 1, 2], (sorted(t), sorted(log))
for b in log:
    assert len(t[b]) == len(log[b]) == 60, (b, len(t[b]), len(log[b]))
    for x, m in zip(t[b], log[b]):
        d = x["data"]
        fee = 0 if m[5] == "none" else int(m[5])
        assert (d["from"], d["to"], d["amount"], d["fee"], d["ok"]) == (int(m[2]), int(m[3]), int(m[4]), fee, m[6] == "true"), (d, m[0])
        assert x["post_state"]["banks"][str(b)]["balances"] == [int(v) for v in m[7].split(",")], (x, m[0])
    assert sorted({x["data"]["worker"] for x in t[b]}) == [3 * b + 1, 3 * b + 2, 3 * b + 3], b
u = [x for x in w if x["action"] == "UntracedChange"]
assert [x["data"] for x in u] == [{"bank": 1, "event": "Transfer"}, {"bank": 2, "event": "Transfer"}], u
assert len(w) == 182, len(w)
PY
); then ok "each Transfer window is the bank's log line; banks 1 and 2 enter untraced"; else
	not_ok "each Transfer window is the bank's log line" "$out"; fi
# number goroutines: raw/ names the workers 1, 2, 3 in each process
python3 -c '
import json, sys
g = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["site"] >= 0:
        g.setdefault(r["proc"], set()).add(r["goid"])
sys.exit(0 if g == {0: {1, 2, 3}, 1: {1, 2, 3}, 2: {1, 2, 3}} else 1)' a/raw/bank.ndjson &&
	ok "number goroutines: each process's goroutines are 1, 2, 3" ||
	not_ok "number goroutines: 1, 2, 3" "$(head -n 3 a/raw/bank.ndjson)"

check "verify reruns it: identical" "$CAPTURE" verify --trust a
check "check reruns the projection's checks" "$CAPTURE" check a
"$CAPTURE" audit a >audit.txt 2>&1
grep -q 'declared by projection bank: the acting key.s pre-state as one row x each action by its data {ok}' audit.txt &&
	grep -q '^coverage: 2/2 reachable observed' audit.txt &&
	ok "audit prints the declared domain" || not_ok "audit prints the declared domain" "$(head -n 4 audit.txt)"

forms_back "$SPEC" a bank
graded a 182 "$P/bank-next.js" "$P/bank-fee.js" '^  a/bank/bank.ndjson:[0-9]+: Transfer: balances '
