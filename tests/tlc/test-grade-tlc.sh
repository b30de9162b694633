#!/bin/bash
# capture grade --tlc (docs/tlc.md): spin-task's,
# locksvc-task's and dqueue-task's canonical corpora graded by TLC against
# SysMoBench's reference spin spec and PGo's specs (../shared/reference/tla)
# through the mappings of tla/, one TLC run each; every failure, and every
# impossibility window TLC accepts, is of a cause docs/disagreements.md
# names, as many as it says.  A wrong window planted fails; one TLC run per
# window (upstream's way) gives the batch's verdicts; what TLC or the
# mapping refuses says where.
# needs: tlc reference python3 expensive
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
spin=$ROOT/tests/spin
T=$REF/tla
page=$ROOT/docs/disagreements.md
export CAPTURE_TLA2TOOLS=${CAPTURE_TLA2TOOLS:-$("$ROOT/scripts/tla2tools")}

# tlc NAME SPEC MAPPING INPUT...: the JSON scorecard in $TMP/NAME.json,
# the reports in $TMP/NAME.out/; exit 0 or 4.
tlc() {
	local name=$1 spec=$2 map=$3 rc=0; shift 3
	"$CAPTURE" grade --json --tlc "$spec" --mapping "$ROOT/tla/$map" -o "$TMP/$name.out" "$@" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 4 ] || not_ok "$name: graded" "exit $rc: $(tail -n 3 "$TMP/$name.err")"
}
"$CAPTURE" fold spin-task "$spin"/domain/*.ftrace "$spin/contention.ftrace" "$spin/block-2cpu.ftrace" \
	--form canonical -o "$TMP/spin" >/dev/null 2>&1 || not_ok "fold spin-task" "exit $?"
"$CAPTURE" fold locksvc-task "$REF"/pgo-traces/locksvc/* --form canonical -o "$TMP/locksvc" \
	>/dev/null 2>&1 || not_ok "fold locksvc-task" "exit $?"
"$CAPTURE" fold dqueue-task "$REF"/pgo-traces/dqueue/* --form canonical -o "$TMP/dqueue" \
	>/dev/null 2>&1 || not_ok "fold dqueue-task" "exit $?"

tlc spin "$T/sysmobench-spin/spin.tla" spin-task.spin.json "$TMP/spin" "$TMP/spin/spin-task/impossible"
tlc locksvc "$T/pgo/locksvc.tla" locksvc-task.locksvc.json "$TMP/locksvc"
tlc dqueue "$T/pgo/dqueue.tla" dqueue-task.dqueue.json "$TMP/dqueue"
{
	python3 "$here/tlc-judge.py" graded fixtures "$TMP/spin.json" "$TMP/locksvc.json" "$TMP/dqueue.json"
} | LC_ALL=C sort >"$TMP/graded"
python3 "$here/tlc-judge.py" page "$page" fixtures impossible |
	grep -E '^(spin|locksvc|dqueue)\.tla ' | LC_ALL=C sort >"$TMP/page"
if diff "$TMP/page" "$TMP/graded" >"$TMP/diff"; then
	ok "spin, locksvc, dqueue: TLC rejects and accepts what docs/disagreements.md says ($(wc -l <"$TMP/graded") causes)"
else
	not_ok "spin, locksvc, dqueue: TLC rejects and accepts what docs/disagreements.md says" \
		"page (<) vs TLC (>): $(grep '^[<>]' "$TMP/diff" | head -n 6)"
fi
python3 - "$TMP/locksvc.json" "$TMP/spin.json" <<'PY' &&
import json, sys
lock, spin = (json.load(open(p)) for p in sys.argv[1:])
assert lock["all"]["windows"] == 170 and lock["all"]["passed"] == 170, lock["all"]
assert spin["all"]["unscoreable"] == 23 and spin["all"]["passed"] == 65, spin["all"]
PY
	ok "locksvc-task passes PGo's spec, 170 of 170; spin-task's try_lock windows are unscoreable" ||
	not_ok "locksvc-task passes PGo's spec, 170 of 170; spin-task's try_lock windows are unscoreable" "see above"

# Upstream's reports/tv_results.json: {action: {passes, total, rate}}.
python3 - "$TMP/dqueue.out/reports/tv_results.json" "$TMP/dqueue.json" <<'PY' &&
import json, sys
tv, card = (json.load(open(p)) for p in sys.argv[1:])
acts = {a["action"]: a for a in card["actions"]}
assert set(tv) == set(acts), (tv.keys(), acts.keys())
for a, r in tv.items():
    assert set(r) == {"passes", "total", "rate"}, r
    assert r["passes"] == acts[a]["passed"] and r["total"] == acts[a]["passed"] + acts[a]["failed"], (a, r)
    assert abs(r["rate"] - r["passes"] / r["total"]) < 1e-12, (a, r)
assert tv["ProducerSend"]["passes"] < tv["ProducerSend"]["total"]
PY
	ok "reports/tv_results.json is {action: {passes, total, rate}} of the scorecard" ||
	not_ok "reports/tv_results.json is {action: {passes, total, rate}} of the scorecard" "see above"

# Planted: a grant whose post-state gives the lock to a client that did
# not ask, and a real unlock passed off as an impossibility window too.
mkdir -p "$TMP/plant/impossible"
python3 - "$TMP/locksvc/locksvc-task" "$TMP/plant" <<'PY'
import json, sys
src, dst = sys.argv[1:]
w = json.loads(open(f"{src}/ServerGrantLock.ndjson").readline())
w["post_state"]["q"] = [c + 1 for c in w["post_state"]["q"]]
open(f"{dst}/ServerGrantLock.ndjson", "w").write(json.dumps(w) + "\n")
w = json.loads(open(f"{src}/ClientUnlockRequest.ndjson").readline())
open(f"{dst}/ClientUnlockRequest.ndjson", "w").write(json.dumps(w) + "\n")
w["impossible"] = "planted: a real unlock"
open(f"{dst}/impossible/ClientUnlockRequest.ndjson", "w").write(json.dumps(w) + "\n")
PY
expect_exit 4 "a planted wrong window fails, and a real step planted as impossible is accepted" '' \
	"$CAPTURE" grade --tlc "$T/pgo/locksvc.tla" --mapping "$ROOT/tla/locksvc-task.locksvc.json" \
	"$TMP/plant" "$TMP/plant/impossible"
grep -q "plant/ServerGrantLock.ndjson:1: ServerGrantLock: TLC reaches no post-state" "$TMP/.stdout" &&
	grep -q "plant/impossible/ClientUnlockRequest.ndjson:1: ClientUnlockRequest: accepted: planted" "$TMP/.stdout" &&
	grep -q '^final per action.* ClientUnlockRequest 0 ServerGrantLock 0$' "$TMP/.stdout" &&
	ok "the scorecard names both, and zeroes both actions (the unlock passing)" ||
	not_ok "the scorecard names both, and zeroes both actions (the unlock passing)" "$(tail -n 6 "$TMP/.stdout")"

# One TLC run per window, upstream's way (NeverPost, exit 12), gives the
# batch's verdicts: a pass, a fail, an accepted impossibility window.
mkdir -p "$TMP/few"
sed -n 1p "$TMP/spin/spin-task/TryAcquireBlocking.ndjson" >"$TMP/few/TryAcquireBlocking.ndjson"
sed -n 1p "$TMP/spin/spin-task/AcquireSuccess.ndjson" >"$TMP/few/AcquireSuccess.ndjson"
sed -n 1p "$TMP/spin/spin-task/impossible/AcquireSuccess.ndjson" >"$TMP/few/impossible.ndjson"
"$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" --mapping "$ROOT/tla/spin-task.spin.json" \
	--jvm-per-window -o "$TMP/one" "$TMP/few" >/dev/null 2>&1
python3 - "$TMP/one/verdicts.ndjson" "$TMP/spin.out/verdicts.ndjson" "$TMP/spin" <<'PY' &&
import json, os, sys
one = [json.loads(l) for l in open(sys.argv[1])]
batch = {(os.path.relpath(v["file"], sys.argv[3]), v["line"]): v
         for v in map(json.loads, open(sys.argv[2]))}
names = {"impossible.ndjson": "spin-task/impossible/AcquireSuccess.ndjson"}
assert sorted(v["verdict"] for v in one) == ["accepted", "fail", "pass"], one
for v in one:
    base = os.path.basename(v["file"])
    b = batch[(names.get(base, "spin-task/" + base), v["line"])]
    assert (v["verdict"], v.get("steps")) == (b["verdict"], b.get("steps")), (v, b)
PY
	ok "one TLC run a window (upstream's exit 12) gives the batch's verdicts" ||
	not_ok "one TLC run a window (upstream's exit 12) gives the batch's verdicts" "see above"

# Refusals: what the mapping does not say, a mapping TLC cannot parse, no TLC.
printf '{"system": "spin-task", "init": {}, "view": {"lockState": "lockState"}, "actions": {}}\n' >"$TMP/bare.json"
expect_exit 3 "an action the mapping does not name is refused, naming the window" \
	'AcquireFail.ndjson:1: .*bare.json maps no action AcquireFail' \
	"$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" --mapping "$TMP/bare.json" "$TMP/spin"
sed 's/"view": {"lockState": "lockState", "pc": "pc"}/"view": {"lockState": "lockState"}/' \
	"$ROOT/tla/spin-task.spin.json" >"$TMP/noview.json"
expect_exit 3 "a variable the view does not map or ignore is refused" \
	'ndjson:1: .*noview.json.s "view" says nothing of the variable pc' \
	"$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" --mapping "$TMP/noview.json" "$TMP/spin"
sed 's/"TryAcquire(T)"/"TryAcquire(T"/' "$ROOT/tla/spin-task.spin.json" >"$TMP/broken.json"
expect_exit 3 "a mapping TLC cannot parse: TLC's message, and the module kept where it says" \
	'TLC stopped \(exit [0-9]+\) on .*/WV.tla: .*Parse Error' \
	"$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" --mapping "$TMP/broken.json" "$TMP/few"
kept_dir=$(sed -n 's/.* on \(.*\)\/WV.tla:.*/\1/p' "$TMP/.stderr")
[ -n "$kept_dir" ] && [ -f "$kept_dir/WV.tla" ] && [ -f "$kept_dir/tlc.out" ] &&
	ok "the refused module stays for reading" || not_ok "the refused module stays for reading" "$kept_dir"
[ -n "$kept_dir" ] && rm -rf "$kept_dir"
printf 'not json\n' >"$TMP/nojson.json"
expect_exit 3 "a mapping that is not JSON is refused with its line" 'nojson.json:1: not JSON' \
	"$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" --mapping "$TMP/nojson.json" "$TMP/few"
expect_exit 5 "without TLC's jar it says what is missing" 'no TLC: --tla2tools JAR or CAPTURE_TLA2TOOLS' \
	env -u CAPTURE_TLA2TOOLS "$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" \
	--mapping "$ROOT/tla/spin-task.spin.json" "$TMP/few"
expect_exit 2 "reports are not written into an input (its *.ndjson would be read as windows)" \
	'output .*/few would replace input' \
	"$CAPTURE" grade --tlc "$T/sysmobench-spin/spin.tla" --mapping "$ROOT/tla/spin-task.spin.json" \
	-o "$TMP/few" "$TMP/few"
