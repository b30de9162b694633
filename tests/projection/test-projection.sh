#!/bin/bash
# A projection declared in a spec (docs/projection.md) folds a spec's
# events into windows with no folder of its own: calls (entry and return
# readings), events (the key's state before, the event's after), an
# untraced change and a key entering as UntracedChange windows, a reading
# inside a call taken in by it, overlapping calls on one key as one
# Overlapped window (never an atomic one), a call never returning; then
# everything downstream from the corpus alone: every form and back,
# check, audit over the declared axes (impossible cells refused, their
# windows in the canonical form), verify, grade against a next() and a
# planted wrong one; and every refusal at its file:line.
# needs: node python3
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/projection
SPEC=$D/lock.probes
EV=$D/lock.ndjson
cp "$EV" "$TMP/lock.ndjson"
cd "$TMP" || exit 1

check "fold by the spec's projection" "$CAPTURE" fold "$SPEC" lock.ndjson -o a
# py NAME CODE: CODE (python, over w = the windows, m = the manifest) holds.
py() {
	if out=$(python3 - "$TMP/a" <<PY 2>&1
import json, sys
d = sys.argv[1]
w = [json.loads(l) for l in open(d + "/lock/lock.ndjson")]
m = json.load(open(d + "/MANIFEST.json"))
info = m["runs"][0]["info"]
$2
PY
	); then ok "$1"; else not_ok "$1" "$out"; fi
}
py "the initial state holds the lock read before the first window" \
	'assert w[0]["pre_state"] == {"locks": {"1": {"held": False, "holder": 0}}}, w[0]'
py "a call: the entry's reading is the pre-state, the return's the post; a reading inside it is taken in" \
	'assert w[0]["action"] == "Lock" and w[0]["data"] == {"lock": 1, "thread": 1} and w[0]["post_state"]["locks"]["1"] == {"held": True, "holder": 1}, w[0]'
py "an overlap is no atomic window: no Lock by thread 2" \
	'assert not [x for x in w if x["action"] == "Lock" and x["data"]["thread"] == 2], w'
py "an overlap: one Overlapped window naming both calls in entry order" \
	'o = [x for x in w if x["action"] == "Overlapped"]; assert len(o) == 1 and [(c["action"], c["data"]["thread"]) for c in o[0]["data"]["calls"]] == [("Lock", 2), ("Unlock", 1)] and o[0]["pre_state"]["locks"]["1"]["holder"] == 1 and o[0]["post_state"]["locks"]["1"]["holder"] == 2, o'
py "a key read first after the first window enters by an UntracedChange" \
	'u = [x for x in w if x["action"] == "UntracedChange"]; assert "2" not in u[0]["pre_state"]["locks"] and u[0]["post_state"]["locks"]["2"] == {"held": False, "holder": 0} and u[0]["data"] == {"lock": 2, "event": "Peek"}, u'
py "an event named by a table: TryLockOk takes the lock, TryLockFail changes nothing, its data its own" \
	't = [x for x in w if x["action"].startswith("TryLock")]; assert [x["action"] for x in t] == ["TryLockOk", "TryLockFail"] and t[1]["pre_state"] == t[1]["post_state"] and t[0]["data"] == {"lock": 2, "thread": 1} and t[1]["data"] == {"lock": 2, "thread": 2, "ok": False}, t'
py "a change no action accounts for is an UntracedChange, not the next window's" \
	'u = [x for x in w if x["action"] == "UntracedChange"][1]; assert u["pre_state"]["locks"]["2"]["held"] and not u["post_state"]["locks"]["2"]["held"]; n = w[w.index(u) + 1]; assert n["action"] == "Unlock" and n["pre_state"] == u["post_state"], n'
py "a call that never returned: in the manifest, no window" \
	'assert info["never_completing"] == [{"action": "Lock", "data": {"lock": 1, "thread": 1}, "pre_state": w[-1]["post_state"]}], info'
py "the manifest: threads, keys, the event no rule names, overlaps, the projection and its sha256" \
	'import hashlib; assert (info["threads"], info["keys"], info["events_of_no_rule"], info["overlaps"]) == (2, 2, 1, 1), info; p = m["projection"]; assert p["name"] == "lock" and p["file"] == "projection.probes" and p["sha256"] == hashlib.sha256(open(d + "/projection.probes", "rb").read()).hexdigest() and m["files"]["projection.probes"] == p["sha256"], p'
same_bytes "the corpus keeps the spec as it was" "$SPEC" a/projection.probes
same_bytes "events/ holds every event as read" lock.ndjson a/events/lock.ndjson

"$CAPTURE" fold "$SPEC" lock.ndjson -o b >/dev/null 2>&1
if diff -r a b >/dev/null; then ok "folded twice: the same bytes"; else not_ok "folded twice: the same bytes" "$(diff -r a b | head -n 3)"; fi

# Every form, and back to the event form's bytes.
for form in stream itf canonical; do
	"$CAPTURE" fold "$SPEC" lock.ndjson --form $form -o "f-$form" >/dev/null 2>"$TMP/.why" ||
		not_ok "fold --form $form" "$(why)"
done
noted "$CAPTURE" convert f-stream/lock/lock.ndjson s.ndjson &&
	same_bytes "stream form converts back" a/lock/lock.ndjson s.ndjson || not_ok "stream form converts back" "$(why)"
noted "$CAPTURE" convert f-itf/lock/lock.itf.json i.ndjson &&
	same_bytes "ITF converts back" a/lock/lock.ndjson i.ndjson || not_ok "ITF converts back" "$(why)"
noted "$CAPTURE" convert f-canonical c && same_bytes "the canonical form converts back" a/lock/lock.ndjson c/lock.ndjson ||
	not_ok "the canonical form converts back" "$(why)"
grep -q '"locks": {"#map": \[\["1", ' f-itf/lock/lock.itf.json && ok "ITF: the keyed state is a #map" ||
	not_ok "ITF: the keyed state is a #map" "$(head -c 300 f-itf/lock/lock.itf.json)"
noted "$CAPTURE" convert --form itf a/lock/lock.ndjson x.itf.json && noted "$CAPTURE" convert x.itf.json x.ndjson &&
	same_bytes "a corpus's window file to ITF and back: its corpus names the projection" a/lock/lock.ndjson x.ndjson ||
	not_ok "a corpus's window file to ITF: its corpus names the projection" "$(why)"
cp a/lock/lock.ndjson loose.ndjson
expect_exit 2 "a loose window file of a projection: the action names do not tell" "give --system" \
	"$CAPTURE" convert --form itf loose.ndjson y.itf.json
noted "$CAPTURE" convert --system "$SPEC" --form itf loose.ndjson y.itf.json &&
	noted "$CAPTURE" convert y.itf.json y.ndjson &&
	same_bytes "--system SPEC names it: to ITF and back" loose.ndjson y.ndjson ||
	not_ok "--system SPEC names it" "$(why)"

check "check CORPUS reruns the projection's checks" "$CAPTURE" check a
check "check SPEC INPUT" "$CAPTURE" check "$SPEC" lock.ndjson

# The audit over the declared axes.
"$CAPTURE" audit a >audit.txt 2>&1
grep -q '(declared by projection lock: the acting key.s pre-state by {held, holder} x each action by its data {lock, thread})' audit.txt &&
	grep -q '^coverage: 4/44 reachable observed (4 covered by windows, 0 only never completing; 96 cells, 52 impossible)' audit.txt &&
	grep -qE '^  held=false holder=0 +Unlock\(lock=1,thread=1\) +unlocking a free lock is a fatal error' audit.txt &&
	grep -qE '^  held=false holder=0 +Lock\(lock=1,thread=1\) +1$' audit.txt &&
	ok "audit prints the declared domain, its impossible cells and the call never completing" ||
	not_ok "audit prints the declared domain" "$(head -n 8 audit.txt)"
grep -q '"describes": "declared by projection lock' a/audit.json &&
	ok "the corpus's audit.json is of the declared domain" || not_ok "audit.json of the declared domain" "$(head -c 300 a/audit.json)"
if python3 - f-canonical <<'PY'; then ok "the canonical form: the impossible cells' windows"; else not_ok "the canonical form: the impossible cells' windows" "$(ls f-canonical/lock/impossible)"; fi
import json, sys
w = [json.loads(l) for l in open(sys.argv[1] + "/lock/impossible/Unlock.ndjson")]
assert len(w) == 4, w
for x in w:
    k = str(x["input"]["lock"])
    assert x["impossible"] == "unlocking a free lock is a fatal error"
    assert x["pre_state"] == x["post_state"] == {"locks": {k: {"held": False, "holder": 0}}}, x
PY
sed 's/"Unlock","proc":0,"goid":20,"addr":1,"held":true,"holder":2/"Unlock","proc":0,"goid":20,"addr":1,"held":false,"holder":0/' lock.ndjson >free.ndjson
expect_exit 4 "a window in a cell declared impossible is refused" 'Unlock window in cell \(held=false holder=0, Unlock\(lock=1,thread=2\)\), which lock declares impossible' \
	"$CAPTURE" fold "$SPEC" free.ndjson -o free
nothing_left "no corpus" free

# verify, and a corpus whose projection was altered.
check "verify reruns the fold: identical" "$CAPTURE" verify a
cp -r a t && echo '# altered' >>t/projection.probes
expect_exit 3 "audit of a corpus whose projection copy was altered" 't/projection.probes: altered' "$CAPTURE" audit t
expect_exit 7 "verify of it" '' "$CAPTURE" verify t
grep -q '^  altered: projection.probes has sha256' "$TMP/.stdout" && ok "verify says it was altered" ||
	not_ok "verify says it was altered" "$(head -n 3 "$TMP/.stdout")"

# grade: a next() written from what a lock promises, and a planted wrong one.
expect_exit 0 "grade: lock-next.js passes every scored window" '' \
	"$CAPTURE" grade --json --exec "node $D/lock-next.js" a
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["all"]; sys.exit(0 if (a["passed"], a["unscoreable"], a["windows"]) == (5, 2, 7) else 1)' "$TMP/.stdout" &&
	ok "grade: 5 passed, the 2 untraced changes unscoreable" || not_ok "grade: 5 passed, 2 unscoreable" "$(head -c 300 "$TMP/.stdout")"
expect_exit 4 "grade: an Unlock that keeps the lock fails" '' \
	"$CAPTURE" grade --exec "node $D/lock-unlock-keeps.js" a
grep -q 'lock.ndjson:7: Unlock: Unlock by 2 gives {"held":true,"holder":2}' "$TMP/.stdout" &&
	ok "grade names the Unlock window it fails" || not_ok "grade names the Unlock window" "$(tail -n 3 "$TMP/.stdout")"

# serialized: the overlap refutes it.
sed 's/^call Unlock Unlocked$/call Unlock Unlocked serialized/' "$SPEC" >ser.probes
expect_exit 4 "an overlap of a call declared serialized fails the fold" \
	'lock.ndjson:7: Unlock on key 1 while another thread.s call on it is open: the projection declares Unlock \(line 11\) serialized' \
	"$CAPTURE" fold ./ser.probes lock.ndjson -o ser
nothing_left "no corpus" ser

# Refusals of the projection: exit 3 at SPEC:LINE, nothing written.
refused() { # NAME PATTERN SED
	sed "$3" "$SPEC" >bad.probes
	expect_exit 3 "refused: $1" "bad.probes:[0-9]+: $2" "$CAPTURE" fold ./bad.probes lock.ndjson -o bad
	nothing_left "refused: $1: no corpus" bad
}
refused "an unknown statement" "'keys': expected state, key" 's/^key locks/keys locks/'
refused "a name of a built-in system" 'projection etcd: a built-in system' 's/^projection lock/projection etcd/'
refused "a by of no table" "by ok trylocks: no 'actions trylocks' above" 's/by ok trylock$/by ok trylocks/'
refused "an event named twice" 'Locked: already the return of line 10' 's/^observe Peek/observe Locked/'
refused "the fold's own action" "UntracedChange: the fold's own action" 's/true=TryLockOk/true=UntracedChange/'
refused "a row of no state field" 'row owner: no state field owner' 's/^row holder 0 1 2/row owner 0 1 2/'
refused "a column no window's data has" 'column who: no call or event has data who' 's/^column thread 1 2/column who 1 2/'
refused "a value that cannot be a label" 'a=b: a value is an integer' 's/^row held true false/row held true a=b/'
refused "impossible of no action" 'impossible \.\.\. Relock: no action Relock' 's/^impossible held=false Unlock/impossible held=false Relock/'
refused "reaches of a state off the rows" 'reaches: every state field must be a row axis to draw the cell.s window \(count is none\)' 's/^state held holder$/state held holder count/'
refused "data named as the key" 'Lock: data lock: the window.s data has the key lock already' 's/^call Lock Locked$/call Lock Locked\n\tdata lock=addr/'
refused "data for an action its rule makes not" 'Lock: data by for Unlock: the rule makes no action Unlock' 's/^call Lock Locked$/call Lock Locked\n\tdata by=goid for Unlock/'
refused "data named twice for one action" 'data ok: named twice for one action' 's/^\tdata ok for TryLockFail$/\tdata ok for TryLockFail\n\tdata ok for TryLockOk TryLockFail/'
printf 'func main.main\nentry Main\n\tx i64 x\n' >noproj.probes
expect_exit 2 "a spec without a projection" 'noproj.probes declares no projection' \
	"$CAPTURE" fold ./noproj.probes lock.ndjson -o np

# Events the projection cannot fold: exit 3 at INPUT:LINE.
badev() { # NAME PATTERN LINE-SED
	sed "$3" lock.ndjson >bad.ndjson
	expect_exit 3 "refused: $1" "$2" "$CAPTURE" fold "$SPEC" bad.ndjson -o bad
	nothing_left "refused: $1: no corpus" bad
}
badev "an event without the spec's header key" 'bad.ndjson:1: no "event": not an event of a probe spec' '1s/"event"/"name"/'
badev "a reading without a state field" 'bad.ndjson:4: Locked has no state field holder' '4s/,"holder":1//'
badev "a return with no call open" 'bad.ndjson:3: Locked returns from no call open in its thread' '2d'
badev "a return of another key" 'bad.ndjson:4: Locked reads key 2, its entry \(line 2\) key 1' '4s/"addr":1/"addr":2/'
badev "an action on a key never read" 'bad.ndjson:10: TryLock is an action on key 2, never read before' '10d'
badev "a table's value missing" "bad.ndjson:11: TryLock: ok maybe is not in 'actions trylock'" '11s/"ok":true/"ok":"maybe"/'

# The probe spec's own statements for projections, refused before any
# binary is looked at: exit 3 at SPEC:LINE.
printf 'func main.main\nnumber goroutines\nentry Main\n\tx i64 x\n' >late.probes
expect_exit 3 "number goroutines after a func" 'late.probes:2: expected .number goroutines., before any .func.' \
	"$CAPTURE" go --probes ./late.probes -o late -- /nonexistent/prog
printf 'func main.main\nentry Main\n\tx addr = 1\n' >addr.probes
expect_exit 3 "a computed addr field" 'addr.probes:3: an addr field reads one pointer' \
	"$CAPTURE" go --probes ./addr.probes -o addr -- /nonexistent/prog
printf 'func main.main\nentry Main\n\tx i64 x\nprojection p\nstate x\ncall Main Mained\nfunc main.f\n' >after.probes
expect_exit 3 "a probe statement after the projection line" "after.probes:7: 'func': expected state, key" \
	"$CAPTURE" go --probes ./after.probes -o after -- /nonexistent/prog
