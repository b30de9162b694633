#!/usr/bin/env bash
# capture spin on the real guest (Debian's kernel under QEMU): windows equal
# to the published corpus, deterministic, and every failure caught.  Boots
# QEMU for real; the download and build cache is reused between runs
# (CAPTURE_CACHE, default ~/.cache/capture).
# needs: qemu reference python3
# locks: guest
source "$(dirname "$0")/../lib.sh"

ref=$REF/sysmobench-corpora/spin

# same_digest NAME KEY A B: manifests A and B give KEY the same sha256.
same_digest() {
	local a b
	a=$(grep -A2 "\"$2\"" "$3" | grep -o '[0-9a-f]\{64\}')
	b=$(grep -A2 "\"$2\"" "$4" | grep -o '[0-9a-f]\{64\}')
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$1"
	else not_ok "$1" "'$a' vs '$b'"; fi
}

# A source tree whose scenarios/spin holds the files given, the rest linked
# to the real tree: CAPTURE_HOME for scenarios that must not live in git.
fake_home() {
	local home=$TMP/home-$1; shift
	mkdir -p "$home/scenarios/spin"
	ln -s "$ROOT/qemu" "$home/qemu"
	ln -s "$ROOT/scenarios/spin/module" "$home/scenarios/spin/module"
	for f in "$@"; do cp "$f" "$home/scenarios/spin/"; done
	echo "$home"
}

check "capture all" "$CAPTURE" spin --scenario all -o "$TMP/a"
same_bytes "contention windows = spin_2thread.ndjson" \
	"$TMP/a/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
same_bytes "long windows = spin_seq.ndjson" \
	"$TMP/a/spin/02-long.ndjson" "$ref/spin_seq.ndjson"

# The windows are folded from the trace channel's decoding (raw/RUN.log);
# the JSON channel (raw/RUN.json.log) says the same, byte for byte, where
# no lock() spun.
for r in 01-contention 02-long; do
	same_bytes "$r: decoded trace = JSON channel" "$TMP/a/raw/$r.log" "$TMP/a/raw/$r.json.log"
	grep -q "\"raw/$r.ftrace\": \"ftrace ring-buffer pages" "$TMP/a/MANIFEST.json" &&
		ok "$r: raw ring-buffer pages kept, listed as varying" ||
		not_ok "$r: raw ring-buffer pages kept, listed as varying" "$(grep -A3 varying "$TMP/a/MANIFEST.json")"
done
# What SysMoBench's raw-event converter relies on: every line it parses
# as JSON is an event of the instrumentation's schema (markers are not JSON).
python3 - "$TMP/a/raw/01-contention.log" >"$TMP/sysmo" 2>&1 <<'PY' &&
import json, sys
keys = ['seq', 'thread', 'lock', 'state', 'action', 'actor']
n = 0
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        assert line.startswith('CAPTURE '), line
        continue
    assert list(e) == keys and e['seq'] == n, line
    n += 1
assert n == 13, n
PY
	ok "decoded stream: the instrumentation's schema, line by line" ||
	not_ok "decoded stream: the instrumentation's schema, line by line" "$(tail -n 3 "$TMP/sysmo")"

# The manifest too: it records the environment, which on one machine is
# the same, and no time, path or pid.  The raw ring-buffer pages carry
# time stamps: they differ, what they decode to does not.
check "capture all again" "$CAPTURE" spin --scenario all -o "$TMP/b"
for f in raw/01-contention.log raw/02-long.log raw/01-contention.json.log \
	 raw/02-long.json.log events/01-contention.ndjson \
	 events/02-long.ndjson spin/01-contention.ndjson spin/02-long.ndjson \
	 audit.json MANIFEST.json; do
	same_bytes "second capture: same $f" "$TMP/a/$f" "$TMP/b/$f"
done
diff -r -x '*.ftrace' "$TMP/a" "$TMP/b" >"$TMP/diff" &&
	ok "second capture: no file more or less" ||
	not_ok "second capture: no file more or less" "$(head -n 5 "$TMP/diff")"
for r in 01-contention 02-long; do
	noted "$CAPTURE" fold spin "$TMP/b/raw/$r.ftrace" -o "$TMP/refold-$r" >/dev/null &&
		same_bytes "$r: its kept ring-buffer pages fold to the same windows" \
			"$TMP/refold-$r/spin/$r.ndjson" "$TMP/a/spin/$r.ndjson" ||
		not_ok "$r: its kept ring-buffer pages fold to the same windows" "$(why)"
done

# Scenarios boot at once (-j, default the number of CPUs): one at a time
# gives the same corpus, manifest included.
check "capture all, one boot at a time" "$CAPTURE" spin --scenario all -j 1 -o "$TMP/j1"
check "capture all, two boots at once" "$CAPTURE" spin --scenario all --jobs=2 -o "$TMP/j2"
for d in j1 j2; do
	diff -r -x '*.ftrace' "$TMP/a" "$TMP/$d" >"$TMP/diff" &&
		ok "-$d: the same corpus as the default" ||
		not_ok "-$d: the same corpus as the default" "$(head -n 5 "$TMP/diff")"
done
expect_exit 2 "-j 0 is a usage error" '--jobs 0: expected a number from 1 to 16' \
	"$CAPTURE" spin --scenario all -j 0 -o "$TMP/j0"
nothing_left "-j 0: no output" "$TMP/j0"

check "one scenario by name" "$CAPTURE" spin --scenario long -o "$TMP/long"
same_bytes "long alone = long in all" \
	"$TMP/long/spin/02-long.ndjson" "$TMP/a/spin/02-long.ndjson"
# verify reruns it: the varying pages are checked for presence only.
expect_exit 0 "verify: a rerun gives the same corpus" '' "$CAPTURE" verify "$TMP/long"
rm "$TMP/long/raw/02-long.ftrace"
expect_exit 7 "verify: a varying file removed is caught" '' "$CAPTURE" verify "$TMP/long"
grep -q 'altered: raw/02-long.ftrace is listed in MANIFEST.json but missing' "$TMP/.stdout" &&
	ok "verify: names the varying file missing" ||
	not_ok "verify: names the varying file missing" "$(head -n 3 "$TMP/.stdout")"

# The JSON channel alone (what bench/spin-capture compares the trace path
# with): the same windows, no trace channel.
check "JSON channel alone" env CAPTURE_SPIN_CHANNEL=json "$CAPTURE" spin --scenario long -o "$TMP/json"
same_bytes "JSON channel alone: long windows = spin_seq.ndjson" \
	"$TMP/json/spin/02-long.ndjson" "$ref/spin_seq.ndjson"
[ ! -e "$TMP/json/raw/02-long.ftrace" ] && grep -q '"event_channel": "json"' "$TMP/json/MANIFEST.json" &&
	ok "JSON channel alone: no trace channel, recorded as such" ||
	not_ok "JSON channel alone: no trace channel, recorded as such" "$(ls "$TMP/json/raw")"
expect_exit 2 "a bad CAPTURE_SPIN_CHANNEL is a usage error" 'CAPTURE_SPIN_CHANNEL must be' \
	env CAPTURE_SPIN_CHANNEL=serial "$CAPTURE" spin --scenario long -o "$TMP/ch"

# A ring buffer too small for the scenario: the kernel overwrites pages;
# the capture fails with the counts and writes nothing.
for _ in $(seq 350); do printf '0 lock\n0 release\n'; done >"$TMP/06-many"
home=$(fake_home many "$TMP/06-many")
expect_exit 6 "trace buffer overrun: lost events with counts" \
	'raw/06-many.ftrace: cpu0: the ring buffer lost events: overrun [1-9][0-9]*' \
	env CAPTURE_HOME="$home" CAPTURE_TRACE_KB=4 "$CAPTURE" spin --scenario many -o "$TMP/many"
nothing_left "trace buffer overrun: no output" "$TMP/many"
check "the same scenario with the default buffer" \
	env CAPTURE_HOME="$home" "$CAPTURE" spin --scenario many -o "$TMP/many"
expect_exit 2 "a bad CAPTURE_TRACE_KB is a usage error" 'CAPTURE_TRACE_KB must be' \
	env CAPTURE_TRACE_KB=0 "$CAPTURE" spin --scenario long -o "$TMP/kb0"

expect_exit 2 "unknown scenario lists the known ones" \
	'known: contention, long' "$CAPTURE" spin --scenario nosuch -o "$TMP/u"
nothing_left "unknown scenario: no output" "$TMP/u"

printf '0 lock\n0 grab\n0 release\n' >"$TMP/01-badline"
home=$(fake_home bad "$TMP/01-badline")
expect_exit 3 "bad scenario line names file:line" '01-badline:2:' \
	env CAPTURE_HOME="$home" "$CAPTURE" spin --scenario all -o "$TMP/bad"
nothing_left "bad scenario line: no output" "$TMP/bad"

# The kernel refuses a blocking lock on a held lock at one CPU.
printf '0 lock\n1 lock\n' >"$TMP/01-deadlock"
home=$(fake_home deadlock "$TMP/01-deadlock")
expect_exit 3 "step the kernel refuses names file:line" '01-deadlock:2:.*spin forever' \
	env CAPTURE_HOME="$home" "$CAPTURE" spin --scenario deadlock -o "$TMP/dl"
nothing_left "refused step: no output" "$TMP/dl"
# A lock by the holder never returns: at two CPUs only as the last step.
printf '0 lock\n0 lock\n0 release\n' >"$TMP/01-selfdl"
home=$(fake_home selfdl "$TMP/01-selfdl")
expect_exit 3 "a self-deadlock before the last step names file:line" \
	"01-selfdl:2: '0 lock': the kernel cannot run this step: .*must be the scenario's last step" \
	env CAPTURE_HOME="$home" "$CAPTURE" spin --scenario selfdl --cpus 2 -o "$TMP/sd"
nothing_left "self-deadlock not last: no output" "$TMP/sd"

# A new scenario file runs on the same module and initramfs; at one CPU
# too, a release of a free lock and one by the actor not holding it run
# as spin_unlock() runs them (the guest stays sound: it ends and reports).
printf '1 try\n0 try\n1 release\n0 lock\n0 release\n0 release\n0 lock\n1 release\n0 lock\n0 release\n' >"$TMP/07-new"
home=$(fake_home new "$TMP/07-new")
check "new scenario file" env CAPTURE_HOME="$home" "$CAPTURE" spin --scenario new -o "$TMP/new"
for key in module initramfs_sha256; do
	same_digest "new scenario: same $key" $key "$TMP/a/MANIFEST.json" "$TMP/new/MANIFEST.json"
done
if grep -q '"action": "AcquireLock", "data": {"thread": 0, "callType": "try"}, "pre_state": {"lockHeld": true, "lockHolder": 1}, "post_state": {"lockHeld": true, "lockHolder": 1}' \
	"$TMP/new/spin/07-new.ndjson"; then
	ok "new scenario: 0's try fails while 1 holds"
else
	not_ok "new scenario: 0's try fails while 1 holds" "$(cat "$TMP/new/spin/07-new.ndjson")"
fi
[ "$(sed -n '6p;8p' "$TMP/new/spin/07-new.ndjson" | tr -d '\n')" = \
  '{"action": "ReleaseLock", "data": {"thread": 0}, "pre_state": {"lockHeld": false, "lockHolder": null}, "post_state": {"lockHeld": false, "lockHolder": null}}{"action": "ReleaseLock", "data": {"thread": 1}, "pre_state": {"lockHeld": true, "lockHolder": 0}, "post_state": {"lockHeld": false, "lockHolder": null}}' ] &&
	ok "one CPU: releases of a free lock and by the non-holder leave it free" ||
	not_ok "one CPU: releases of a free lock and by the non-holder leave it free" "$(sed -n '6,8p' "$TMP/new/spin/07-new.ndjson")"

# A guest that powers off without a word, and one that hangs.
expect_exit 6 "guest powering off early fails the capture" \
	'wrote nothing.*console log: ' \
	env CAPTURE_GUEST_STOP=poweroff "$CAPTURE" spin --scenario contention -o "$TMP/off"
nothing_left "early power-off: no output" "$TMP/off"
expect_exit 6 "hung guest times out" 'hung: no exit within 5 s.*console log: ' \
	env CAPTURE_GUEST_STOP=hang CAPTURE_GUEST_TIMEOUT=5 CAPTURE_GUEST_STALL=60 \
	"$CAPTURE" spin --scenario contention -o "$TMP/hang"
nothing_left "hung guest: no output" "$TMP/hang"
# A guest that stops making progress is hung on that evidence, well
# before the timeout, and says so while it waits.
expect_exit 6 "silent guest is hung once it stalls" \
	'hung: nothing new on its console or event channel for 6 s.*console log: ' \
	env CAPTURE_GUEST_STOP=hang CAPTURE_GUEST_STALL=6 \
	"$CAPTURE" spin --scenario contention -o "$TMP/stall"
grep -q 'has written nothing for 5 s' "$TMP/.stderr" &&
	ok "silent guest: silence reported while waiting" ||
	not_ok "silent guest: silence reported while waiting" "$(cat "$TMP/.stderr")"
nothing_left "stalled guest: no output" "$TMP/stall"

# Two CPUs: one pinned kthread per actor; a lock on a held lock really
# spins until the holder's release.
printf '0 lock\n1 lock\n0 try\n0 release\n0 try\n1 release\n' >"$TMP/05-block"
home=$(fake_home cpus2 "$ROOT/scenarios/spin/01-contention" \
	"$ROOT/scenarios/spin/02-long" "$TMP/05-block")
check "capture all at two CPUs" env CAPTURE_HOME="$home" \
	"$CAPTURE" spin --scenario all --cpus 2 -o "$TMP/c2"
same_bytes "two CPUs: contention windows = spin_2thread.ndjson" \
	"$TMP/c2/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
same_bytes "two CPUs: long windows = spin_seq.ndjson" \
	"$TMP/c2/spin/02-long.ndjson" "$ref/spin_seq.ndjson"
# Actor 1 announces its blocking lock, actor 0 goes on and releases, only
# then does actor 1 stop spinning -- the kretprobe saw it in the kernel's
# slow path -- and get the lock.
got=$(grep -o '"action":"[A-Za-z]*","actor":[01]' "$TMP/c2/raw/05-block.log" |
	sed 's/"action":"\([A-Za-z]*\)","actor":\(.\)/\2\1/' | tr '\n' ' ')
want="0TryAcquireBlocking 0AcquireSuccess 1TryAcquireBlocking 0TryAcquireNonBlocking 0AcquireFail 0Release 1StopSpinning 1AcquireSuccess 0TryAcquireNonBlocking 0AcquireFail 1Release "
if [ "$got" = "$want" ]; then ok "two CPUs: lock spins until the release"
else not_ok "two CPUs: lock spins until the release" "$got"; fi
# The kprobe evidence itself, in the manifest: without it, no StopSpinning.
python3 - "$TMP/c2/MANIFEST.json" >"$TMP/evidence" 2>&1 <<'PY' &&
import json, sys
runs = json.load(open(sys.argv[1]))['environment']['trace']['runs']
want = {'01-contention': 0, '02-long': 0, '05-block': 1}
for r, n in want.items():
    e = runs[r]
    assert e['cpus'] == 2 and e['hypervisor'] is True, (r, e)
    assert e['slowpath_entries'] == e['slowpath_exits'] == e['stop_spinning'] == n, (r, e)
PY
	ok "two CPUs: the kretprobe saw the slow path exactly where StopSpinning is" ||
	not_ok "two CPUs: the kretprobe saw the slow path exactly where StopSpinning is" "$(tail -n 2 "$TMP/evidence")"
check "capture the blocking scenario again" env CAPTURE_HOME="$home" \
	"$CAPTURE" spin --scenario block --cpus 2 -o "$TMP/c2b"
same_bytes "two CPUs: same events again" \
	"$TMP/c2/events/05-block.ndjson" "$TMP/c2b/events/05-block.ndjson"
same_bytes "two CPUs: same windows again" \
	"$TMP/c2/spin/05-block.ndjson" "$TMP/c2b/spin/05-block.ndjson"

# The module and the initramfs rebuild bit for bit under another path.
cache=${CAPTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capture}
mkdir -p "$TMP/cache"
ln -s "$cache/kernel" "$TMP/cache/kernel"   # share the download only
check "capture with a fresh build cache" env CAPTURE_CACHE="$TMP/cache" \
	"$CAPTURE" spin --scenario contention -o "$TMP/fresh"
if [ -d "$TMP/cache/modules" ] && [ -d "$TMP/cache/initramfs" ]; then
	ok "fresh cache: module and initramfs rebuilt"
else
	not_ok "fresh cache: module and initramfs rebuilt" "$(ls "$TMP/cache")"
fi
no_build_warning "fresh cache: the module built without a warning" \
	"$TMP/cache/last-run/spin-module-build.log"
for key in module initramfs_sha256; do
	same_digest "rebuilt elsewhere: same $key" $key "$TMP/a/MANIFEST.json" "$TMP/fresh/MANIFEST.json"
done
same_bytes "rebuilt elsewhere: same contention windows" \
	"$TMP/fresh/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
