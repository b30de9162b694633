#!/bin/bash
# The tokens pools (tests/projection/tokens, Rust): each one's state one
# packed word, an AtomicU64 in a static, windows from tests/projection/
# tokens.probes alone, keyed by each pool's address, which is written as
# its number only.  Captured twice byte-identical; each window the pools'
# own log line; verify, check, the declared audit, every form back;
# graded by a next() from the pools' documentation, and a planted wrong
# one (a give_back that keeps the holder) fails.
# needs: root btf cargo node python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/projection/projection-lib.sh"
P=$TESTS_DIR/projection
SPEC=$P/tokens.probes
T=$ROOT/build/projection-tokens
CARGO_TARGET_DIR=$T nice "$(cargo_tool)" build -q --locked --manifest-path "$P/tokens/Cargo.toml" 2>"$TMP/cargo.err" ||
	not_ok "cargo build the pool" "$(tail -n 2 "$TMP/cargo.err")"
cp "$T/debug/tokens" "$TMP/tokens"
cd "$TMP" || exit 1

twice "" probe "$SPEC" ./tokens
if out=$(python3 - a/tokens/tokens.ndjson a.log a/raw/tokens.ndjson <<'PY' 2>&1
import json, re, sys
w = [json.loads(l) for l in open(sys.argv[1])]
log = [re.match(r"(take|give_back) pool=(main|spare) worker=(\d) ok=(true|false) word=(0x[0-9a-f]+|0)", l) for l in open(sys.argv[2])]
u = [x for x in w if x["action"] == "UntracedChange"]
assert [x["data"] for x in u] == [{"pool": 2, "event": "Take"}], u
w = [x for x in w if x["action"] != "UntracedChange"]
assert len(w) == len(log) == 24, (len(w), len(log))
for x, m in zip(w, log):
    word, pool = int(m[5], 16), {"main": 1, "spare": 2}[m[2]]
    assert (x["action"], x["data"]["pool"], x["data"]["who"], x["data"]["ok"]) == ({"take": "Take", "give_back": "GiveBack"}[m[1]], pool, int(m[3]), m[4] == "true"), (x, m[0])
    assert x["post_state"]["pools"][str(pool)] == {"free": word & 255, "holders": (word >> 8) & 255, "taken": word >> 16}, (x, m[0])
    assert x["data"]["thread"] == int(m[3]) + 1, (x, m[0])
# raw/ holds the pools' numbers, never their addresses
assert {json.loads(l)["val"][1] for l in open(sys.argv[3]) if json.loads(l)["site"] >= 0} == {1, 2}
PY
); then ok "each window the pools' own log line, each pool by its number"; else not_ok "each window the pools' own log line" "$out"; fi

check "verify reruns it: identical" "$CAPTURE" verify --trust a
check "check reruns the projection's checks" "$CAPTURE" check a
"$CAPTURE" audit a >audit.txt 2>&1
grep -q 'declared by projection tokens: the acting key.s pre-state by {free} x each action by its data {ok}' audit.txt &&
	grep -qE '^coverage: 8/15 reachable observed .*16 cells, 1 impossible' audit.txt &&
	ok "audit prints the declared domain" || not_ok "audit prints the declared domain" "$(head -n 4 audit.txt)"
forms_back "$SPEC" a tokens
graded a 25 "$P/tokens-next.js" "$P/tokens-keeps-holder.js" 'tokens.ndjson:[0-9]+: GiveBack: GiveBack by [0-9] gives'

# addr fields: a pointer only, read as one value; nothing written.
refused() { # NAME PATTERN SED
	sed "$3" "$SPEC" >bad.probes
	expect_exit 3 "refused: $1" "bad.probes:[0-9]+: $2" "$CAPTURE" probe --probes ./bad.probes -o bad -- ./tokens
	nothing_left "refused: $1: no corpus" bad
}
refused "an addr field of no pointer" '\./tokens: who: u64 is no pointer: an addr field reads one' 's/^\tpool     addr  P$/\tpool     addr  who/'
refused "a computed addr field" 'an addr field reads one pointer' 's/^\tpool     addr  P$/\tpool     addr  = thread/'
