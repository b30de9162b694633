# capture verify: reruns what MANIFEST.json records and compares byte for
# byte -- identical on folded and captured corpora (real QEMU guest, real
# eBPF: needs root as `make test` runs), exit 7 on a tampered corpus, an
# environment difference reported apart, exit 8 when it cannot rerun.
# needs: root btf go goproxy qemu reference python3
# locks: guest
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
log=tests/spin/contention.log
# verify's scratch corpora go here: it must be empty at the end.
export TMPDIR=$TMP/scratch
mkdir -p "$TMPDIR"

identical() { # NAME CORPUS
	expect_exit 0 "$1" '' "$CAPTURE" verify "$2"
	grep -q '^result: identical$' "$TMP/.stdout" || not_ok "$1: says identical" "$(cat "$TMP/.stdout")"
}

"$CAPTURE" fold spin "$log" -o "$TMP/spin" >/dev/null
identical "verify a folded spin corpus" "$TMP/spin"
run=$(ls -d "$REF"/pgo-traces/locksvc/*/ | head -n 1)
"$CAPTURE" fold locksvc "${run%/}" -o "$TMP/locksvc" >/dev/null
identical "verify a folded locksvc corpus (PGo traces)" "$TMP/locksvc"
"$CAPTURE" fold etcd "$REF/etcd-with-tla/example.ndjson" -o "$TMP/etcd" >/dev/null
identical "verify a folded etcd corpus (with_tla trace)" "$TMP/etcd"

if "$CAPTURE" spin --scenario contention -o "$TMP/live" >/dev/null 2>"$TMP/spin.err"; then
	identical "verify a captured spin corpus (QEMU)" "$TMP/live"
	# Only the recorded environment changed (a newer kernel package).
	python3 - "$TMP/live/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["environment"]["kernel"]["version"] = "0.0-older"
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
	expect_exit 0 "environment difference alone passes" '' "$CAPTURE" verify "$TMP/live"
	grep -q '^  environment differs: kernel: .*0.0-older' "$TMP/.stdout" &&
		grep -q '^result: identical output (the environment differs)$' "$TMP/.stdout" &&
		ok "environment difference reported apart" ||
		not_ok "environment difference reported apart" "$(cat "$TMP/.stdout")"
else
	not_ok "capture spin for verify" "$(tail -n 2 "$TMP/spin.err")"
fi
if "$CAPTURE" etcd --scenario election -o "$TMP/etcd-live" >/dev/null 2>"$TMP/etcd.err"; then
	identical "verify a captured etcd corpus (eBPF)" "$TMP/etcd-live"
else
	not_ok "capture etcd for verify" "$(tail -n 2 "$TMP/etcd.err")"
fi

# Tampered corpora.
cp -r "$TMP/spin" "$TMP/edited"
sed -i '2s/"thread": 1/"thread": 0/' "$TMP/edited/spin/contention.ndjson"
expect_exit 7 "an edited window file differs" '' "$CAPTURE" verify "$TMP/edited"
grep -q '^  altered: spin/contention.ndjson has sha256' "$TMP/.stdout" &&
	grep -q '^  differs: spin/contention.ndjson, from line 2$' "$TMP/.stdout" &&
	ok "the edit is named: file and line" || not_ok "the edit is named" "$(cat "$TMP/.stdout")"
cp -r "$TMP/spin" "$TMP/resha"
python3 - "$TMP/resha/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["files"]["spin/contention.ndjson"] = "0" * 64
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
expect_exit 7 "a tampered MANIFEST sha256 differs" '' "$CAPTURE" verify "$TMP/resha"
grep -q "MANIFEST.json records 0000" "$TMP/.stdout" && ok "the tampered digest is named" ||
	not_ok "the tampered digest is named" "$(cat "$TMP/.stdout")"
# MANIFEST.json too is compared byte for byte: the same
# content re-indented with its keys reordered is a difference.
cp -r "$TMP/spin" "$TMP/reindented"
python3 - "$TMP/reindented/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m = dict(reversed(list(m.items())))
open(sys.argv[1], "w").write(json.dumps(m, indent=4) + "\n")
PY
expect_exit 7 "a re-indented, reordered MANIFEST.json differs" '' "$CAPTURE" verify "$TMP/reindented"
grep -q '^  differs: MANIFEST.json, from line 2: not the bytes capture writes' "$TMP/.stdout" &&
	ok "the manifest's difference is named" ||
	not_ok "the manifest's difference is named" "$(cat "$TMP/.stdout")"
cp -r "$TMP/spin" "$TMP/extra"
sed -i '$d' "$TMP/extra/events/contention.ndjson"
expect_exit 7 "a truncated events file differs" '' "$CAPTURE" verify "$TMP/extra"

# Cannot rerun: the input is gone; not a corpus at all.
cp "$log" "$TMP/gone.log"
"$CAPTURE" fold spin "$TMP/gone.log" -o "$TMP/orphan" >/dev/null
rm "$TMP/gone.log"
expect_exit 8 "input gone: could not rerun" 'could not rerun' "$CAPTURE" verify "$TMP/orphan"
expect_exit 3 "not a corpus" 'MANIFEST.json: cannot read' "$CAPTURE" verify "$ROOT/tests"
# A manifest names the files verify reads and hashes: none outside the
# corpus (a FIFO or /dev/zero there would be read forever).
cp -r "$TMP/spin" "$TMP/outside"
mkfifo "$TMP/fifo"
python3 - "$TMP/outside/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["files"]["../fifo"] = "0" * 64
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
expect_exit 3 "a manifest naming a file outside the corpus" \
	"outside/MANIFEST.json: \"files\" lists '../fifo', not a path inside the corpus" \
	timeout 20 "$CAPTURE" verify "$TMP/outside"
# Verify trusts no one: a manifest whose command would run a
# program, scenario files or a source tree the checkout does not ship is
# shown and refused, exit 8, before anything runs; --trust reruns it.
printf '#!/bin/sh\ntouch "%s/ran"\n' "$TMP" >"$TMP/evil"
chmod +x "$TMP/evil"
mkdir -p "$TMP/scen"
cp scenarios/spin/01-contention "$TMP/scen/"
with_command() {   # with_command CORPUS WORD...: a corpus recording that command
	local dir=$1
	shift
	cp -a "$TMP/spin" "$dir"
	python3 - "$dir/MANIFEST.json" "$@" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["command"] = ["capture"] + sys.argv[2:]
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
}
refused() {   # refused NAME WHAT WORD...
	local name=$1 what=$2 c=$TMP/untrusted-$RANDOM
	shift 2
	with_command "$c" "$@"
	expect_exit 8 "$name: refused" \
		"not rerunning: the recorded command runs $what, which this checkout .* does not ship; --trust reruns it" \
		"$CAPTURE" verify "$c"
	grep -Fq "the recorded command: capture $*" "$TMP/.stderr" && [ ! -s "$TMP/.stdout" ] &&
		ok "$name: shown, nothing compared" || not_ok "$name: shown, nothing compared" "$(cat "$TMP/.stderr" "$TMP/.stdout")"
}
refused "a capture go target of the sender's" "$TMP/evil" go --probes tests/go/bank.probes -- "$TMP/evil" -x
refused "a program on PATH" sh go --probes tests/go/bank.probes -- sh -c id
refused "a capture go target without --" "$TMP/evil" go -p tests/go/bank.probes --fold etcd "$TMP/evil"
refused "scenario files from elsewhere" "$TMP/scen" spin --scenarios "$TMP/scen" --scenario all
refused "--scenarios abbreviated" "$TMP/scen" spin --scen="$TMP/scen" -s all
refused "one scenario file from elsewhere" "$TMP/scen/01-contention" spin -s "$TMP/scen/01-contention"
refused "a binary" /bin/true etcd --binary /bin/true --scenario all
refused "a source tree" "$TMP" spin --kernel asterinas --asterinas-src "$TMP" --scenario all
# In the checkout but in a corpus (what a user puts in corpus/): the sender's.
inside=$ROOT/build/verify-trust-$$
mkdir -p "$inside/scenarios"
cp "$TMP/spin/MANIFEST.json" "$inside/"
refused "scenario files of a corpus inside the checkout" "$inside/scenarios" \
	spin --scenarios "$inside/scenarios" --scenario all
rm -rf "$inside"
[ ! -e "$TMP/ran" ] && ok "the sender's program never ran" || not_ok "the sender's program never ran" "it did"
# The checkout's own: no refusal (the rerun fails later, on its own).
with_command "$TMP/shipped" go --probes /nonexistent.probes -- "$ROOT/build/capture"
expect_exit 8 "a program the checkout ships is rerun" "could not rerun: 'capture go' exited with 3" \
	"$CAPTURE" verify "$TMP/shipped"
with_command "$TMP/trusted" go --probes /nonexistent.probes -- "$TMP/evil"
expect_exit 8 "--trust reruns the sender's command" "could not rerun: 'capture go' exited with 3" \
	"$CAPTURE" verify --trust "$TMP/trusted"
[ -z "$(ls -A "$TMPDIR")" ] && ok "no scratch corpus left behind" ||
	not_ok "no scratch corpus left behind" "$(ls "$TMPDIR")"
