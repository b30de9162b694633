#!/bin/bash
# The ring (tests/projection/ring.c, C): its ends in one packed word,
# windows from tests/projection/ring.probes alone.  Built by gcc and clang
# (-O2 -g), each captured twice byte-identical and the two builds' windows
# the same; each window the ring's own log line; verify, check, the
# declared audit, every form back; graded by a next() from the ring's
# documentation, and a planted wrong one (a stack, not a ring) fails.
# needs: root btf node python3
source "$(dirname "$0")/../lib.sh"
P=$TESTS_DIR/projection
SPEC=$P/ring.probes
cd "$TMP" || exit 1
for cc in gcc clang; do
	$cc -O2 -g -o ring-$cc "$P/ring.c" -lpthread 2>cc.err || not_ok "build the ring with $cc" "$(tail -n 2 cc.err)"
	for c in a b; do
		if $CAPTURE probe --probes "$SPEC" -o $cc-$c -- ./ring-$cc >$cc-$c.out 2>$cc-$c.err; then
			ok "$cc: capture probe by the spec's projection ($c)"
		else
			not_ok "$cc: capture probe by the spec's projection ($c)" "$(tail -n 2 $cc-$c.err)"
		fi
	done
	if diff -r $cc-a $cc-b >/dev/null; then ok "$cc: captured twice, one schedule: the same bytes"; else
		not_ok "$cc: captured twice: the same bytes" "$(diff -rq $cc-a $cc-b | head -n 3)"; fi
done
same_bytes "gcc's and clang's builds: the same windows" gcc-a/ring/ring-gcc.ndjson clang-a/ring/ring-clang.ndjson
head -n -1 gcc-a.out >a.log
if out=$(python3 - gcc-a/ring/ring-gcc.ndjson a.log <<'PY' 2>&1
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
noted "$CAPTURE" convert --form itf gcc-a/ring/ring-gcc.ndjson x.itf.json && noted "$CAPTURE" convert x.itf.json x.ndjson &&
	same_bytes "ITF converts back" gcc-a/ring/ring-gcc.ndjson x.ndjson || not_ok "ITF converts back" "$(why)"
noted "$CAPTURE" convert --form stream gcc-a/ring/ring-gcc.ndjson x.stream && noted "$CAPTURE" convert x.stream y.ndjson &&
	same_bytes "the stream form converts back" gcc-a/ring/ring-gcc.ndjson y.ndjson || not_ok "the stream form converts back" "$(why)"
noted "$CAPTURE" fold "$SPEC" gcc-a/raw/ring-gcc.events.ndjson --form canonical -o canon >/dev/null &&
	noted "$CAPTURE" convert canon c && same_bytes "the canonical form converts back" gcc-a/ring/ring-gcc.ndjson c/ring-gcc.events.ndjson ||
	not_ok "the canonical form converts back" "$(why)"

expect_exit 0 "grade: ring-next.js passes every window" '' "$CAPTURE" grade --json --exec "node $P/ring-next.js" gcc-a
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["all"]; sys.exit(0 if a["passed"] == a["windows"] == 45 else 1)' "$TMP/.stdout" &&
	ok "grade: 45 of 45" || not_ok "grade: 45 of 45" "$(head -c 300 "$TMP/.stdout")"
expect_exit 4 "grade: a get of the newest value fails" '' "$CAPTURE" grade --exec "node $P/ring-lifo.js" gcc-a
grep -qE 'ring-gcc.ndjson:[0-9]+: Get: got [0-9]+, the head holds' "$TMP/.stdout" &&
	ok "grade names the gets it fails" || not_ok "grade names the gets it fails" "$(tail -n 2 "$TMP/.stdout")"
