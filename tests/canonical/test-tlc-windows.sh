# scripts/tlc-windows (docs/canonical.md): TLC is not on these machines, so
# what is checked is the modules it writes for TLC and its refusals.
# needs: python3
source "$(dirname "$0")/../lib.sh"
tlcw=$ROOT/scripts/tlc-windows
"$CAPTURE" fold spin-task "$ROOT/tests/spin-fold/contention.ftrace" -o "$TMP/c" >/dev/null 2>&1 ||
	not_ok "fold spin-task" "exit $?"
printf -- '---- MODULE spin ----\nVARIABLES lockState, pc\nNext == UNCHANGED <<lockState, pc>>\n====\n' >"$TMP/spin.tla"
f=$TMP/c/spin-task/AcquireSuccess.ndjson
check "modules and configs emitted for every window" \
	"$tlcw" --emit "$TMP/out" "$TMP/spin.tla" "$f" 'Threads={"0","1"}'
[ "$(ls "$TMP/out"/WV_AcquireSuccess_*.tla | wc -l)" = "$(wc -l <"$f")" ] &&
	ok "one module a window" || not_ok "one module a window" "$(ls "$TMP/out")"
python3 - "$f" "$TMP/out/WV_AcquireSuccess_1.tla" "$TMP/out/WV_AcquireSuccess_1.cfg" <<'PY' &&
import json, sys
w = json.loads(open(sys.argv[1]).readline())
tla, cfg = open(sys.argv[2]).read(), open(sys.argv[3]).read()
pc = " @@ ".join(f'"{k}" :> "{v}"' for k, v in w["pre_state"]["pc"].items())
assert f'/\\ lockState = "{w["pre_state"]["lockState"]}"' in tla.split("WVPost")[0], tla
assert f"/\\ pc = ({pc})" in tla.split("WVPost")[0], tla
assert "EXTENDS spin, TLC" in tla and "WVNext == WVPre /\\ Next" in tla, tla
assert cfg.split() == ["INIT", "WVPre", "NEXT", "WVNext", "INVARIANT", "WVNotPost",
                       "CONSTANT", 'Threads={"0","1"}'], cfg
PY
	ok "the module's Init is the window's pre-state in TLA+" ||
	not_ok "the module's Init is the window's pre-state in TLA+" "see above"
expect_exit 5 "without CAPTURE_TLA2TOOLS it says what is missing" 'set CAPTURE_TLA2TOOLS' \
	env -u CAPTURE_TLA2TOOLS "$tlcw" "$TMP/spin.tla" "$f"
printf '%s\n' '{"window_id": 1, "trace_id": "t", "seq": 1, "action": "A", "actor": null, "pre_state": {"x": null}, "post_state": {"x": 1}, "input": {}}' >"$TMP/null.ndjson"
expect_exit 3 "a value TLA+ has not is refused, naming the line" 'null.ndjson:1: null has no TLA\+ value' \
	"$tlcw" --emit "$TMP/n" "$TMP/spin.tla" "$TMP/null.ndjson"
