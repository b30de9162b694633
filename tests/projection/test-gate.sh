#!/bin/bash
# The gate (tests/projection/gate, Go): a lock held in one packed word,
# windows from tests/projection/gate.probes alone (the word split by
# computed fields).  Twice byte-identical; each window the gate's own log
# line; an overlap made on purpose (worker 2 waits inside EnterAfter
# while worker 1 enters and leaves) folded into one Overlapped window and
# no atomic one, and refused where the spec declares the call serialized;
# verify, check, the declared audit and its impossibility windows, every
# form back; graded by a next() from the gate's documentation, a planted
# wrong one failing.
# needs: root btf go node python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/projection/projection-lib.sh"
P=$TESTS_DIR/projection
SPEC=$P/gate.probes
GOTOOLCHAIN=local GOFLAGS=-mod=readonly $(go_tool) -C "$P/gate" build -trimpath -buildvcs=false \
	-o "$TMP/gate" . 2>"$TMP/go.err" || not_ok "build the gate" "$(tail -n 2 "$TMP/go.err")"
cd "$TMP" || exit 1

twice "" go "$SPEC" ./gate
if out=$(python3 - a a.log <<'PY' 2>&1
import json, re, sys
w = [json.loads(l) for l in open(sys.argv[1] + "/gate/gate.ndjson")]
log = [re.match(r"worker (\d) (\w+)(?: (true|false))? word (0x[0-9a-f]+)", l) for l in open(sys.argv[2])]
def state(word):
    word = int(word, 16)
    return {"held": bool(word & 1), "holder": (word >> 1) & 127, "waiting": (word >> 8) & 255}
name = {"enter": "Enter", "leave": "Leave", "try": "TryEnter", "after": "EnterAfter"}
# the overlap's three log lines (1 enter, 1 leave, 2 after) are one window
i = 0
for x in w:
    if x["action"] == "Overlapped":
        calls = [(c["action"], c["data"]["who"]) for c in x["data"]["calls"]]
        assert calls == [("EnterAfter", 2), ("Enter", 1), ("Leave", 1)], calls
        assert [(m[2], m[1]) for m in log[i:i + 3]] == [("enter", "1"), ("leave", "1"), ("after", "2")], log[i:i + 3]
        assert x["post_state"] == state(log[i + 2][4]) and x["pre_state"] == state(log[i - 1][4]), x
        i += 3
        continue
    m = log[i]
    assert (x["action"], x["data"]["who"]) == (name[m[2]], int(m[1])), (x, m[0])
    assert x["post_state"] == state(m[4]), (x, m[0])
    if m[3]:
        assert x["data"]["ok"] == (m[3] == "true"), (x, m[0])
    i += 1
assert i == len(log) == 34, (i, len(log))
assert not [x for x in w if x["action"] in ("Enter", "EnterAfter") and x["data"]["who"] == 2 and x["pre_state"]["waiting"]], w
PY
); then ok "each window the gate's own log line; the overlap one Overlapped window, no atomic one"; else
	not_ok "each window the gate's own log line" "$out"; fi
python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["runs"][0]["info"]; sys.exit(0 if (i["overlaps"], i["threads"]) == (1, 3) else 1)' a/MANIFEST.json &&
	ok "the manifest counts the overlap and 3 workers" || not_ok "the manifest counts the overlap" "$(grep -A8 '"info"' a/MANIFEST.json)"

# Where the spec says EnterAfter is serialized, the overlap refutes it.
sed 's/^call EnterAfter EnteredAfter$/call EnterAfter EnteredAfter serialized/' "$SPEC" >ser.probes
expect_exit 4 "an overlap of a call declared serialized fails the fold" \
	'raw/gate.events.ndjson:[0-9]+: Enter on the state while another thread.s call on it is open: the projection declares EnterAfter \(line [0-9]+\) serialized' \
	"$CAPTURE" go --probes ./ser.probes -o ser -- ./gate
test -d ser.failed && ok "what it captured is kept in ser.failed/" || not_ok "kept in ser.failed/" "$(ls)"

check "verify reruns it: identical" "$CAPTURE" verify --trust a
check "check reruns the projection's checks" "$CAPTURE" check a
"$CAPTURE" audit a >audit.txt 2>&1
grep -q 'declared by projection gate: the acting state.s pre-state by {held, holder, waiting} x each action by its data {who}' audit.txt &&
	grep -q '^coverage: 12/72 reachable observed (12 covered by windows, 0 only never completing; 192 cells, 120 impossible)' audit.txt &&
	grep -q '^outside the domain: 1 Overlapped windows' audit.txt &&
	ok "audit prints the declared domain" || not_ok "audit prints the declared domain" "$(head -n 4 audit.txt)"
forms_back "$SPEC" a gate
python3 -c '
import json, sys
w = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if len(w) == 6 and all(x["pre_state"] == x["post_state"] and not x["pre_state"]["held"] and x["impossible"].startswith("only the holder") for x in w) else 1)' \
	canon/gate/impossible/Leave.ndjson && ok "the impossible Leave cells' windows" ||
	not_ok "the impossible Leave cells' windows" "$(ls canon/gate/impossible)"
graded a 32 "$P/gate-next.js" "$P/gate-try-takes.js" 'gate.ndjson:[0-9]+: TryEnter: TryEnter by [0-9] gives'
[ "$(grep -c ': TryEnter: TryEnter by [0-9] gives' "$TMP/.stdout")" = 6 ] &&
	ok "grade names the 6 TryEnter windows that found the gate held" ||
	not_ok "grade names the 6 TryEnter windows" "$(tail -n 3 "$TMP/.stdout")"

# The projection's names against the spec's events, before anything runs:
# exit 3 at the projection's line, nothing written, the program not run.
refused() { # NAME PATTERN SED
	sed "$3" "$SPEC" >bad.probes
	expect_exit 3 "refused before the run: $1" "bad.probes:[0-9]+: $2" \
		"$CAPTURE" go --probes ./bad.probes -o bad -- ./gate
	nothing_left "refused before the run: $1: no corpus" bad
}
refused "an event the probes write not" "Leftt: the spec's probes write no event Leftt \(they write: Enter, Entered" \
	's/^call Leave Left$/call Leave Leftt/'
refused "a state field the events lack" "state holder: the spec's Enter events have no field holdr" \
	's/^state held holder waiting$/state held holder=holdr waiting/'
refused "data in neither event of a call" "data okk: the spec's TryEnter events have no field okk, nor its TriedEnter events" \
	's/^\tdata who ok$/\tdata who okk/'
refused "a thread field the events lack" "thread worker: the spec's Enter events have no field gid" \
	's/^thread worker=goid$/thread worker=gid/'
