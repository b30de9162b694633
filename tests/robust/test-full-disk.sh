# needs: root
# A full disk under every command that writes: a 64 KB tmpfs,
# filled to the last byte, under each output.  Each write that fails is
# exit 6 naming the cause (No space left on device), what was there before
# is whole, and no temporary stays.  Root mounts the tmpfs.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
log=$ROOT/tests/spin/contention.log
ref=$REF/sysmobench-corpora/spin
full=$TMP/full
mkdir -p "$full"
if ! mount -t tmpfs -o size=64k tmpfs "$full" 2>"$TMP/.mount"; then
	not_ok "a full disk" "cannot mount a 64 KB tmpfs (needs root): $(cat "$TMP/.mount")"
	exit 0
fi
trap 'umount "$full"; rm -rf "$TMP"' EXIT
"$CAPTURE" fold spin "$log" -o "$TMP/c" >/dev/null
win=$TMP/c/spin/contention.ndjson
cp "$win" "$full/old.ndjson"
echo 'mine' >"$full/old.svg"
# left: what is in the tmpfs besides what the test put there.
left() { ls -A "$full" | grep -vxE 'filler|old\.ndjson|old\.svg|stdout|page' || true; }

# A pipe input is copied into $TMPDIR first: a TMPDIR that fills up during
# the copy says so (a short write used to leave errno stale: "Success").
expect_exit 6 "a pipe input into a TMPDIR that fills up: exit 6, the full disk named" \
	'cannot copy - to .*/capture-input.tmp-[0-9]+-.*: No space left on device' \
	sh -c 'head -c 200000 /dev/zero | "$@"' sh env TMPDIR="$full" \
	"$CAPTURE" fold spin - -o "$TMP/piped"
[ -z "$(left)" ] && [ ! -e "$TMP/piped" ] && ok "a pipe input into a full TMPDIR: nothing left" ||
	not_ok "a pipe input into a full TMPDIR: nothing left" "$(left)"
"$CAPTURE" fold spin "$log" "$ROOT"/tests/spin/domain/01-free.ftrace \
	--form canonical -o "$TMP/canon" >/dev/null
mkdir "$full/cdir" "$full/chalf"
head -c 4096 /dev/zero >"$full/page"
cat /dev/zero >"$full/filler" 2>/dev/null   # every byte of it taken now

expect_exit 6 "fold -o onto a full disk" 'write error on .*: No space left on device' \
	"$CAPTURE" fold spin "$log" -o "$full/c"
expect_exit 6 "convert onto a full disk" "cannot write $full/new.ndjson.tmp-.*: No space left on device" \
	"$CAPTURE" convert "$win" "$full/new.ndjson"
expect_exit 6 "convert --force over a file on a full disk" 'No space left on device' \
	"$CAPTURE" convert --force --form stream "$win" "$full/old.ndjson"
same_bytes "the file convert would have replaced is whole" "$win" "$full/old.ndjson"
expect_exit 6 "audit --svg onto a full disk" 'No space left on device' \
	"$CAPTURE" audit --force --svg "$full/old.svg" "$ref"
[ "$(cat "$full/old.svg")" = mine ] && ok "the SVG audit would have replaced is whole" ||
	not_ok "the SVG audit would have replaced is whole" "$(head -c 80 "$full/old.svg")"
# A directory of files (canonical IN): all or none, new or existing.
expect_exit 6 "convert CANONICAL onto a full disk" 'No space left on device' \
	"$CAPTURE" convert "$TMP/canon" "$full/cnew"
expect_exit 6 "convert CANONICAL into a directory on a full disk" 'No space left on device' \
	"$CAPTURE" convert "$TMP/canon" "$full/cdir"
[ -z "$(ls -A "$full/cdir")" ] && rmdir "$full/cdir" &&
	ok "convert CANONICAL on a full disk: no trace, no staging left" ||
	not_ok "convert CANONICAL on a full disk: no trace, no staging left" "$(ls -A "$full/cdir")"
for cmd in "convert $win -" "audit --json $ref" "audit $ref"; do
	read -r -a args <<<"$cmd"
	expect_exit 6 "$cmd > a file on a full disk: exit 6 naming the cause" \
		'write error on standard output: No space left on device' \
		sh -c '"$@" >"$0"' "$full/stdout" "$CAPTURE" "${args[@]}"
done
rm "$full/page"   # a page free: the first trace's file fits, the second not
expect_exit 6 "convert CANONICAL: the second trace's file finds the disk full" \
	'No space left on device' "$CAPTURE" convert "$TMP/canon" "$full/chalf"
[ -z "$(ls -A "$full/chalf")" ] && rmdir "$full/chalf" &&
	ok "convert CANONICAL: the first trace's file is not left alone" ||
	not_ok "convert CANONICAL: the first trace's file is not left alone" "$(ls -A "$full/chalf")"
[ -z "$(left)" ] && ok "a full disk: no temporary, no part of an output left" ||
	not_ok "a full disk: no temporary, no part of an output left" "$(left)"
