#!/usr/bin/env bash
# The domain set on the real guest (Debian's kernel under QEMU, two CPUs):
# scenarios generated from the audit domain reach every combination of the
# reference domain (18/18, the two self-deadlocks observed never
# completing) and every reachable one of the extended projection, with
# the kernel's slow-path evidence where lock()s spun; two captures are
# byte-identical.  Boots QEMU 15 times (5 scenarios, 3 captures).
# needs: qemu python3
# locks: guest
source "$(dirname "$0")/../lib.sh"
checks=$ROOT/tests/spin/domain-checks.py

expect_exit 2 "the domain set needs two CPUs" 'domain needs --cpus 2' \
	"$CAPTURE" spin --scenario domain -o "$TMP/one"
nothing_left "the domain set at one CPU: nothing written" "$TMP/one"
expect_exit 2 "the domain set runs on Linux" 'domain runs on --kernel linux' \
	"$CAPTURE" spin --scenario domain --cpus 2 --kernel asterinas -o "$TMP/ast"

check "capture the domain set" "$CAPTURE" spin --scenario domain --cpus 2 -j 2 -o "$TMP/d1"
check "capture it again" "$CAPTURE" spin --scenario domain --cpus 2 -j 2 -o "$TMP/d2"
# Everything but the raw ring-buffer pages (their time stamps vary).
diff -r -x '*.ftrace' "$TMP/d1" "$TMP/d2" >"$TMP/diff" 2>&1 &&
	ok "two captures: byte-identical (raw decoded events, events, windows, manifest, audit)" ||
	not_ok "two captures: byte-identical" "$(head -n 5 "$TMP/diff")"
[ "$(ls "$TMP/d1/spin" | tr '\n' ' ')" = "01-free.ndjson 02-held-by-0.ndjson 03-held-by-0-spinning-1.ndjson 04-held-by-1.ndjson 05-held-by-1-spinning-0.ndjson " ] &&
	ok "one scenario per pre-state in which a call can be made" ||
	not_ok "one scenario per pre-state in which a call can be made" "$(ls "$TMP/d1/spin")"
grep -q '"generated": "domain"' "$TMP/d1/MANIFEST.json" &&
	ok "the manifest says the scenarios were generated" ||
	not_ok "the manifest says the scenarios were generated" "$(grep -A6 '"scenarios"' "$TMP/d1/MANIFEST.json")"

check "reference domain: 18/18 observed (audit.json), 2 never completing" \
	python3 "$checks" coverage spin "$TMP/d1/audit.json"
python3 - "$TMP/d1/MANIFEST.json" >"$TMP/ev.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
json.dump({"runs": [{"name": k, "info": {"trace": v}}
                    for k, v in m["environment"]["trace"]["runs"].items()]}, sys.stdout)
PY
check "the kretprobe saw the slow path exactly where lock()s spun" \
	python3 "$checks" evidence "$TMP/ev.json"

# The extended projection, captured as such.
check "capture the domain set as spin-spinning" \
	"$CAPTURE" spin --scenario domain --cpus 2 -j 2 --fold spin-spinning -o "$TMP/e"
check "extended domain: every reachable cell observed, the rest impossible with reasons" \
	python3 "$checks" coverage spin-spinning "$TMP/e/audit.json"
grep -q '"system": "spin-spinning"' "$TMP/e/MANIFEST.json" &&
	cmp -s "$TMP/e/raw/02-held-by-0.log" "$TMP/d1/raw/02-held-by-0.log" &&
	ok "spin-spinning: its own system, from the same decoded events" ||
	not_ok "spin-spinning: its own system, from the same decoded events" "$(grep '"system"' "$TMP/e/MANIFEST.json")"
expect_exit 2 "--fold of a system that does not read spin streams" \
	"--fold: 'locksvc' does not fold spin streams" \
	"$CAPTURE" spin --scenario domain --cpus 2 --fold locksvc -o "$TMP/bad"
