# The spin folder on recorded streams: both emitter variants, noise, and
# every way a stream can be wrong (each: its exit code, file:line, no output).
# needs: reference python3
source "$(dirname "$0")/../lib.sh"
here=$(dirname "$0")
log=$here/contention.log
ref=$REF/sysmobench-corpora/spin

# fold FILE: fold into $TMP/out, print the window file's path.
fold() { rm -rf "$TMP/out"; noted "$CAPTURE" fold spin "$1" -o "$TMP/out" >/dev/null; }

fold "$log" && same_bytes "explicit AcquireFail folds to the reference windows" \
	"$TMP/out/spin/contention.ndjson" "$ref/spin_2thread.ndjson" ||
	not_ok "explicit AcquireFail folds" "$(why)"

# The published Asterinas emitter prints nothing on a failed try: drop the
# AcquireFail lines and renumber seq the way that emitter counts.
awk '/AcquireFail/ { next } /"seq":/ { sub(/"seq":[0-9]+/, "\"seq\":" n++) } { print }' "$log" |
	sed 's/^CAPTURE END 13$/CAPTURE END 11/' >"$TMP/silent.log"
fold "$TMP/silent.log" && same_bytes "failed tries inferred without AcquireFail" \
	"$TMP/out/spin/silent.ndjson" "$ref/spin_2thread.ndjson" ||
	not_ok "failed tries inferred without AcquireFail" "$(why)"
grep -q '"inferred_failed_tries": 2' "$TMP/out/MANIFEST.json" &&
	ok "inferred tries are counted in the manifest" ||
	not_ok "inferred tries are counted in the manifest" "$(grep inferred "$TMP/out/MANIFEST.json")"

# A serial log: boot lines and kernel-test runner lines between events, CRLF,
# and line noise that is not UTF-8 (only the events' JSON must be).
awk 'NR % 3 == 0 { print "[    0.3" NR "] virtio: probing device " NR "\r" }
     NR == 5 { print "test sync::spin::test::scenario ... \r" }
     NR == 7 { print "\377\376 line noise \300\r" }
     { print $0 "\r" }
     END { print "test result: ok. 1 passed; 0 failed\r" }' "$log" >"$TMP/noisy.log"
fold "$TMP/noisy.log" && same_bytes "a noisy serial log folds" \
	"$TMP/out/spin/noisy.ndjson" "$ref/spin_2thread.ndjson" ||
	not_ok "a noisy serial log folds" "$(why)"

# Events emitted with seq modulo 100 wrap.
python3 - "$log" >"$TMP/wrap.log" <<'PY'
import sys, re
lines = open(sys.argv[1]).read().splitlines()
events = [l for l in lines if l.startswith('{')]
out, n = ['CAPTURE BEGIN wrap'], 0
for _ in range(9):                      # 9 x 13 events: seq wraps at 100
    for l in events:
        out.append(re.sub(r'"seq":\d+', '"seq":%d' % (n % 100), l)); n += 1
out.append('CAPTURE END %d' % n)
print('\n'.join(out))
PY
for _ in 1 2 3 4 5 6 7 8 9; do cat "$ref/spin_2thread.ndjson"; done >"$TMP/wrap.want"
if fold "$TMP/wrap.log"; then
	same_bytes "seq wrapping at 100: 9 copies of the reference windows" \
		"$TMP/out/spin/wrap.ndjson" "$TMP/wrap.want"
else
	not_ok "seq wrapping at 100: 9 copies of the reference windows" "$(why)"
fi

fails() { # CODE NAME PATTERN FILE
	rm -rf "$TMP/bad" "$TMP"/bad.tmp-*   # each check on its own
	expect_exit "$1" "$2" "$3" "$CAPTURE" fold spin "$4" -o "$TMP/bad"
	nothing_left "$2: nothing written" "$TMP/bad"
}
head -n -1 "$log" >"$TMP/truncated.log"
fails 6 "truncated stream (no END)" 'truncated.log:14: .*CAPTURE END' "$TMP/truncated.log"
sed '/"seq":5,/d' "$log" >"$TMP/gap.log"
fails 6 "seq gap" 'gap.log:7: seq 6 where 5 was due' "$TMP/gap.log"
sed '/"seq":4,/s/"actor":0}/"actor":0/' "$log" >"$TMP/malformed.log"
fails 3 "malformed event line" 'malformed.log:6: malformed event' "$TMP/malformed.log"
# JSON the writer would refuse, in a field the fold does not use.
sed '/"seq":4,/s/"lock":0/"lock":0,"note":"\xff"/' "$log" >"$TMP/utf8.log"
fails 3 "invalid UTF-8 in an event" 'utf8.log:6: invalid UTF-8 in a JSON string' "$TMP/utf8.log"
sed '/"seq":4,/s/"lock":0/"lock":0,"note":1e999/' "$log" >"$TMP/inf.log"
fails 3 "a number that is not finite in an event" 'inf.log:6: a JSON number out of range' "$TMP/inf.log"
printf 'CAPTURE BEGIN idle\nCAPTURE END 0\n' >"$TMP/idle.log"
fails 4 "a run without a window" 'idle.log: no windows: ' "$TMP/idle.log"
sed '/"seq":4,/s/"thread":0/"thread":1/; /"seq":4,/s/"actor":0/"actor":1/' "$log" >"$TMP/impossible.log"
# spin_unlock() checks no owner: a release by the actor not holding the
# lock frees it, as the kernel does.
fold "$TMP/impossible.log" &&
	sed -n 3p "$TMP/out/spin/impossible.ndjson" | grep -qF '{"action": "ReleaseLock", "data": {"thread": 1}, "pre_state": {"lockHeld": true, "lockHolder": 0}, "post_state": {"lockHeld": false, "lockHolder": null}}' &&
	ok "release by a non-holder: the lock is free after it" ||
	not_ok "release by a non-holder: the lock is free after it" "$(sed -n 3p "$TMP/out/spin/impossible.ndjson")"
# 1's lock() (seq 6, on the lock 0 holds: it spins) then "releases".
sed '/"seq":4,/d; /"seq":5,/s/unlocked/locked/; /"seq":6,/s/.*/{"seq":6,"thread":1,"lock":0,"state":"unlocked","action":"Release","actor":1}/' "$log" |
	awk '/"seq":/ { sub(/"seq":[0-9]+/, "\"seq\":" n++) } { print }' | sed 's/^CAPTURE END 13$/CAPTURE END 12/' >"$TMP/spinrel.log"
fails 4 "a release by an actor inside lock()" 'spinrel.log:7: Release by actor 1, which is inside lock\(\)' "$TMP/spinrel.log"
sed '/"seq":4,/s/unlocked/locked/' "$log" >"$TMP/stillheld.log"
fails 4 "a release that leaves the lock held" 'stillheld.log:6: Release by actor 0 reports a lock state that contradicts' "$TMP/stillheld.log"
# Drop 0's release: 1's lock() then "succeeds" on a lock 0 still holds.
sed '/"seq":4,/d; /"seq":5,/s/unlocked/locked/' "$log" |
	awk '/"seq":/ { sub(/"seq":[0-9]+/, "\"seq\":" n++) } { print }' |
	sed 's/^CAPTURE END 13$/CAPTURE END 12/' >"$TMP/held.log"
fails 4 "success on a held lock" 'held.log:7: AcquireSuccess: actor 1 got a lock that is held' "$TMP/held.log"
# A lock() still spinning at the end is a self-deadlock only by the holder
# (tests/audit checks that one: a call never completing); anyone else's
# would have got the lock at a release the stream lacks.
# Here 0's last release is replaced by 1's lock().
sed '/"seq":12,/s/.*/{"seq":12,"thread":1,"lock":0,"state":"locked","action":"TryAcquireBlocking","actor":1}/' \
	"$log" >"$TMP/waiting.log"
fails 4 "a non-holder's lock() never returning" "waiting.log:15: actor 1's lock\\(\\) never succeeded" "$TMP/waiting.log"
{ cat "$log"; sed -n '2p' "$log"; } >"$TMP/after.log"
fails 4 "event after END" 'after.log:16: event after the CAPTURE END' "$TMP/after.log"
sed 's/^CAPTURE END 13$/CAPTURE END 15/' "$log" >"$TMP/lost.log"
fails 6 "END count larger than the stream" 'lost.log:15: .*2 lost' "$TMP/lost.log"
fails 3 "missing file" 'nosuch.log: no such file' "$TMP/nosuch.log"
expect_exit 2 "unknown system" "unknown system 'nosuch'" "$CAPTURE" fold nosuch "$log"
expect_exit 0 "check passes on a good stream" '' "$CAPTURE" check spin "$log"
fold "$log" && expect_exit 0 "check re-checks the inputs a corpus names" '' "$CAPTURE" check "$TMP/out"

# check CORPUS on a bad manifest: bad input naming
# MANIFEST.json, exit 3, as audit of the same corpus says.
# edit_manifest PYTHON: apply PYTHON to m, the manifest of $TMP/out.
edit_manifest() {
	rm -rf "$TMP/out" && fold "$log" &&
		python3 - "$TMP/out/MANIFEST.json" "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(m, open(sys.argv[1], "w"))
PY
}
edit_manifest 'm["system"] = "nosuch"'
expect_exit 3 "check CORPUS: an unknown system" "out/MANIFEST.json: unknown system 'nosuch'" \
	"$CAPTURE" check "$TMP/out"
for runs in '[]' 'null' '"x"'; do
	edit_manifest "m['runs'] = json.loads('$runs')"
	expect_exit 3 "check CORPUS: runs $runs" 'out/MANIFEST.json: "runs" is not an array' \
		"$CAPTURE" check "$TMP/out"
done
edit_manifest 'm["runs"] = m["runs"] * 2'
expect_exit 3 "check CORPUS: a run twice" 'out/MANIFEST.json: run contention .* is there twice' \
	"$CAPTURE" check "$TMP/out"
edit_manifest 'del m["runs"][0]["name"]'
expect_exit 3 "check CORPUS: a run without a name" 'out/MANIFEST.json: a run without "name"' \
	"$CAPTURE" check "$TMP/out"
