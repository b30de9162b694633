#!/bin/bash
# The ring (tests/projection/ring.c, C): its ends in one packed word,
# windows from tests/projection/ring.probes alone.  Built by gcc and clang
# (-O2 -g), each captured twice byte-identical and the two builds' windows
# the same; each window the ring's own log line; verify, check, the
# declared audit, every form back; graded by a next() from the ring's
# documentation, and a planted wrong one (a stack, not a ring) fails.
# needs: root btf node python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/projection/projection-lib.sh"
P=$TESTS_DIR/projection
SPEC=$P/ring.probes
cd "$TMP" || exit 1
for cc in gcc clang; do
	$cc -O2 -g -o ring-$cc "$P/ring.c" -lpthread 2>cc.err || not_ok "build the ring with $cc" "$(tail -n 2 cc.err)"
	twice $cc- probe "$SPEC" ./ring-$cc
done
same_bytes "gcc's and clang's builds: the same windows" gcc-a/ring/ring-gcc.ndjson clang-a/ring/ring-clang.ndjson
if out=$(python3 - gcc-a/ring/ring-gcc.ndjson gcc-a.log <<'PY' 2>&1
import json, re, sys
w = [json.loads(l) for l in open(sys.argv[1])]
log = [re.match(r"(put|get) thread=(\d) value=(\d+) ok=(\d) word=(0x[0-9a-f]+|0)", l) for l in open(sys.argv[2])]
assert len(w) == len(log) == 45, (len(w), len(log))
for x, m in zip(w, log):
    word = int(m[5], 16)
    head, tail = word & 255, (word >> 8) & 255
    assert (x["action"], x["data"]["value"], x["data"]["ok"]) == (m[1].capitalize(), int(m[3]), int(m[4])), (x, m[0])
    assert (x["post_state"]["head"], x["post_state"]["tail"], x["post_state"]["count"]) == (head, tail, (tail - head) & 255), (x, m[0])
    assert x["data"]["thread"] == int(m[2]) + 1, (x, m[0])
PY
); then ok "each window the ring's own log line"; else not_ok "each window the ring's own log line" "$out"; fi

check "verify reruns it: identical" "$CAPTURE" verify --trust gcc-a
check "check reruns the projection's checks" "$CAPTURE" check gcc-a
"$CAPTURE" audit gcc-a >audit.txt 2>&1
grep -q 'declared by projection ring: the acting state.s pre-state by {count} x each action by its data {ok}' audit.txt &&
	grep -q '^coverage: 10/10 reachable observed (10 covered by windows, 0 only never completing; 20 cells, 10 impossible)' audit.txt &&
	ok "audit prints the declared domain, every reachable cell covered" || not_ok "audit prints the declared domain" "$(head -n 4 audit.txt)"
forms_back "$SPEC" gcc-a ring-gcc
graded gcc-a 45 "$P/ring-next.js" "$P/ring-lifo.js" 'ring-gcc.ndjson:[0-9]+: Get: got [0-9]+, the head holds'
