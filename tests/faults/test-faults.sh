# Faults while a corpus is written: capture killed by SIGKILL,
# a full disk, an output directory that becomes unwritable.  Each fault
# ends with its exit code and message, and nothing is lost: DEST is either
# absent or a whole corpus (the old one, or the new one), never a part.
# The disk faults need root (a small tmpfs, chattr); CI is root.
# needs: root python3
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
log=tests/spin/contention.log
gen=$TMP/gen
python3 bench/gen-locksvc.py "$gen" 40 >/dev/null   # a fold of about a second

# whole NAME DIR: DIR is a corpus that verifies against its own inputs.
whole() {
	expect_exit 0 "$1" '' "$CAPTURE" verify "$2"
}

# --- SIGKILL mid-write: nothing can clean up; the next run does ---------
"$CAPTURE" fold locksvc "$gen" -o "$TMP/k" >/dev/null 2>&1 &
pid=$!
if started_then "$TMP/k.tmp-$pid-*" "$pid"; then
	kill -KILL "$pid"
	wait "$pid"
	compgen -G "$TMP/k.tmp-$pid-??????" >/dev/null && [ ! -e "$TMP/k" ] &&
		ok "SIGKILL: no DEST, DEST.tmp-PID-* names the dead owner" ||
		not_ok "SIGKILL: no DEST, DEST.tmp-PID-* names the dead owner" "$(ls -d "$TMP"/k*)"
	mkdir "$TMP/k.tmp-$$-abcdef" "$TMP/k.tmp-other"   # a live owner's; not ours
	expect_exit 0 "the next run removes the dead owner's temporary" \
		"removing $TMP/k.tmp-$pid-.{6}, left by process $pid, which is gone" \
		"$CAPTURE" fold spin "$log" -o "$TMP/k"
	! compgen -G "$TMP/k.tmp-$pid-*" >/dev/null && [ -d "$TMP/k.tmp-$$-abcdef" ] &&
		[ -d "$TMP/k.tmp-other" ] &&
		ok "only a temporary whose owner is gone is removed" ||
		not_ok "only a temporary whose owner is gone is removed" "$(ls -d "$TMP"/k*)"
	whole "after SIGKILL, the next corpus is whole" "$TMP/k"
else
	not_ok "SIGKILL mid-write" "the fold never started its corpus"
fi

# SIGKILL while an existing corpus is being replaced: the old one stays.
"$CAPTURE" fold locksvc "$gen" -o "$TMP/r" >/dev/null
cp -a "$TMP/r" "$TMP/r.before"
"$CAPTURE" fold locksvc "$gen" -o "$TMP/r" >/dev/null 2>&1 &
pid=$!
if started_then "$TMP/r.tmp-$pid-*" "$pid"; then
	kill -KILL "$pid"
	wait "$pid"
	diff -r "$TMP/r" "$TMP/r.before" >/dev/null &&
		ok "SIGKILL while replacing: the old corpus is whole" ||
		not_ok "SIGKILL while replacing: the old corpus is whole" "$(diff -r "$TMP/r" "$TMP/r.before" | head -n 3)"
else
	not_ok "SIGKILL while replacing" "the fold never started its corpus"
fi

# A file output's temporary (convert, audit --svg) is cleaned the same way.
dead=$(sh -c 'echo $$')
"$CAPTURE" convert "$TMP/k/spin/contention.ndjson" "$TMP/conv.ndjson"
: >"$TMP/conv.ndjson.tmp-$dead-abcdef"
expect_exit 0 "convert removes a dead owner's OUT.tmp-PID-*" \
	"removing $TMP/conv.ndjson.tmp-$dead-abcdef, left by process $dead" \
	"$CAPTURE" convert --force "$TMP/k/spin/contention.ndjson" "$TMP/conv.ndjson"

# --- the disk faults: a 1 MB tmpfs ---------------------------------------
disk=$TMP/disk
mkdir -p "$disk"
if ! mount -t tmpfs -o size=1m tmpfs "$disk" 2>"$TMP/.mount"; then
	not_ok "disk faults" "cannot mount a 1 MB tmpfs (needs root): $(cat "$TMP/.mount")"
	exit 0
fi
trap 'chattr -i "$disk/out" 2>/dev/null; umount "$disk"; rm -rf "$TMP"' EXIT

# A full disk while replacing a corpus: exit 6 naming the file and the
# reason; the old corpus is whole and nothing else is left.
"$CAPTURE" fold spin "$log" -o "$disk/c" >/dev/null
cp -a "$disk/c" "$TMP/c.before"
expect_exit 6 "a full disk: exit 6, the file and the reason" \
	'write error on .*: No space left on device' \
	"$CAPTURE" fold locksvc "$gen" -o "$disk/c"
diff -r "$disk/c" "$TMP/c.before" >/dev/null && ! compgen -G "$disk/c.tmp-*" >/dev/null &&
	ok "a full disk: the old corpus is whole, nothing else left" ||
	not_ok "a full disk: the old corpus is whole, nothing else left" "$(ls -a "$disk")"

# The output directory becomes unwritable (immutable) during the run: the
# corpus cannot be moved into place, exit 6 naming the rename; once it is
# writable again the next run removes what the failed one could not.  On
# a tmpfs of its own, large enough for the second-long fold.
umount "$disk"
mount -t tmpfs -o size=128m tmpfs "$disk"
mkdir "$disk/out"
"$CAPTURE" fold locksvc "$gen" -o "$disk/out/c" >/dev/null 2>"$TMP/ro.err" &
pid=$!
if started_then "$disk/out/c.tmp-$pid-*" "$pid" && chattr +i "$disk/out"; then
	rc=0
	wait "$pid" || rc=$?
	chattr -i "$disk/out"
	[ "$rc" = 6 ] && grep -q "cannot rename .*c.tmp-$pid-.* to $disk/out/c: Operation not permitted" "$TMP/ro.err" &&
		ok "an output directory made unwritable: exit 6 naming the rename" ||
		not_ok "an output directory made unwritable: exit 6 naming the rename" "exit $rc: $(tail -n 2 "$TMP/ro.err")"
	[ ! -e "$disk/out/c" ] && ok "an output directory made unwritable: no DEST" ||
		not_ok "an output directory made unwritable: no DEST" "$(ls -a "$disk/out")"
	expect_exit 0 "made writable again: the next run cleans up" \
		"removing $disk/out/c.tmp-$pid-" "$CAPTURE" fold spin "$log" -o "$disk/out/c"
	! compgen -G "$disk/out/c.tmp-*" >/dev/null && ok "made writable again: no temporary left" ||
		not_ok "made writable again: no temporary left" "$(ls -a "$disk/out")"
else
	chattr -i "$disk/out" 2>/dev/null
	wait "$pid"
	not_ok "an output directory made unwritable" "the fold ended first or chattr failed: $(tail -n 2 "$TMP/ro.err")"
fi
