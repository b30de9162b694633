# Folding large PGo runs streams: the optimized build (parse arenas, a
# reading thread, event lines serialized on that thread, the input hashed
# on another, outputs hashed as they are written) writes the same bytes as the sanitizer build (heap only) and
# as the straightforward Python fold, its peak RSS does not grow with the
# input, and a bad line deep in a file read ahead is still reported at its
# file:line with nothing written.
# needs: python3 jq time
source "$(dirname "$0")/../lib.sh"
FAST=$ROOT/build/capture
[ -x "$FAST" ] || { not_ok "optimized build" "$FAST missing (make)"; exit 0; }

gen() { python3 "$ROOT/bench/gen-locksvc.py" "$TMP/$1" "$2" >/dev/null; }
# peak_kb OUT RUN: fold RUN with the optimized build, print its peak RSS.
peak_kb() {
	noted /usr/bin/time -f %M -o "$TMP/time" "$FAST" fold locksvc "$2" -o "$1" >/dev/null &&
		cat "$TMP/time"
}

gen small 4 && gen large 32 && ok "generated 4 MB and 32 MB runs" ||
	not_ok "generated 4 MB and 32 MB runs" "bench/gen-locksvc.py failed"

if ! small_kb=$(peak_kb "$TMP/fast-small" "$TMP/small/") ||
	! large_kb=$(peak_kb "$TMP/fast-large" "$TMP/large/"); then
	not_ok "optimized fold" "$(why)"
elif [ $((large_kb - small_kb)) -lt 4096 ]; then
	ok "peak RSS independent of input size (${small_kb} kB at 4 MB, ${large_kb} kB at 32 MB)"
else
	not_ok "peak RSS independent of input size" "${small_kb} kB at 4 MB, ${large_kb} kB at 32 MB"
fi

"$CAPTURE" fold locksvc "$TMP/large/" -o "$TMP/asan-large" >/dev/null &&
	diff -r "$TMP/fast-large" "$TMP/asan-large" >"$TMP/diff" &&
	ok "optimized and sanitizer builds write identical corpora" ||
	not_ok "optimized and sanitizer builds write identical corpora" "$(head -n 5 "$TMP/diff")"

# The manifest's digests are taken while the files are written: they must
# be the sha256 of what is on disk.
(cd "$TMP/fast-large" && jq -r '.files | to_entries[] | "\(.value)  \(.key)"' \
	MANIFEST.json | sha256sum -c --quiet) >"$TMP/sums" 2>&1 &&
	ok "manifest digests taken while writing match the files" ||
	not_ok "manifest digests taken while writing match the files" "$(head -n 3 "$TMP/sums")"

out=$(python3 "$ROOT/bench/fold_locksvc.py" "$TMP/small" "$TMP/py-small" 2>&1 &&
	cmp "$TMP/fast-small/locksvc/small.ndjson" "$TMP/py-small/locksvc/small.ndjson" 2>&1 &&
	cmp "$TMP/fast-small/events/small.ndjson" "$TMP/py-small/events/small.ndjson" 2>&1) &&
	ok "windows and events equal the Python fold's" ||
	not_ok "windows and events equal the Python fold's" "$(printf '%s' "$out" | tail -n 3)"

# A line broken far into the server's file: read ahead long before the merge
# reaches it, reported only then.
bad=$TMP/bad
cp -r "$TMP/large" "$bad"
server=$(ls "$bad"/trace-0-*.log)
sed -i '20000s/.*/{"archetypeName": broken/' "$server"
expect_exit 3 "bad line deep in a file: exit 3 at file:line" "$server:20000: not a JSON value" \
	"$FAST" fold locksvc "$bad" -o "$TMP/bad-out"
[ ! -e "$TMP/bad-out" ] && ok "bad line deep in a file: nothing written" ||
	not_ok "bad line deep in a file: nothing written" "$TMP/bad-out exists"
expect_exit 3 "bad line deep in a file: same in check" "$server:20000: not a JSON value" \
	"$FAST" check locksvc "$bad"
