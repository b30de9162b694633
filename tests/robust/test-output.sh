# Output paths, the recorded command and what verify may touch: every
# spelling of -o records the same command, verify never writes outside its
# scratch directory and sees files added to a corpus, a failed run leaves no
# directory it created, a replaced corpus is swapped in one step, a bad
# output path is a usage error (exit 2).
# needs: reference python3 strace
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
log=tests/spin/contention.log
export TMPDIR=$TMP/scratch
mkdir -p "$TMPDIR"

# state DIR: path, inode, mtime and sha256 of everything under DIR.
state() {
	find "$1" -printf '%p %i %T@\n' | sort
	find "$1" -type f -exec sha256sum {} + | sort
}

"$CAPTURE" fold spin "$log" -o "$TMP/short" >/dev/null 2>&1
i=0
for spelling in "--out DIR" "--out=DIR" "--outp=DIR" "-oDIR" "--output DIR" \
		"--output=DIR"; do
	dir=$TMP/spelled-$((i += 1))
	read -r -a opt <<<"${spelling//DIR/$dir}"
	"$CAPTURE" fold spin "$log" "${opt[@]}" >/dev/null 2>&1
	same_bytes "fold $spelling records the command -o does" \
		"$TMP/short/MANIFEST.json" "$dir/MANIFEST.json"
done

# verify on a corpus made with --out: identical, the corpus untouched.
abbr=$TMP/spelled-1
before=$(state "$abbr")
expect_exit 0 "verify a corpus made with --out" '' "$CAPTURE" verify "$abbr"
grep -q '^result: identical$' "$TMP/.stdout" && ok "it is identical" ||
	not_ok "it is identical" "$(cat "$TMP/.stdout")"
[ "$before" = "$(state "$abbr")" ] && ok "verify left the corpus untouched" ||
	not_ok "verify left the corpus untouched" "$(diff <(echo "$before") <(state "$abbr") | head -n 4)"

# A recorded command naming an output is refused, not rerun.
cp -r "$TMP/short" "$TMP/named"
python3 - "$TMP/named/MANIFEST.json" "$TMP/victim" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["command"] += ["--outp", sys.argv[2]]
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
expect_exit 8 "a recorded output option is not rerun" 'names an output \(--outp\)' \
	"$CAPTURE" verify "$TMP/named"
[ ! -e "$TMP/victim" ] && ok "nothing written where it named" ||
	not_ok "nothing written where it named" "$(ls "$TMP/victim")"

# A rerun that succeeds but writes no corpus could not rerun (exit 8).
cp -r "$TMP/short" "$TMP/nocorpus"
python3 - "$TMP/nocorpus/MANIFEST.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["command"] = ["capture", "help"]
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
expect_exit 8 "a rerun that writes no corpus" 'wrote no corpus' \
	"$CAPTURE" verify "$TMP/nocorpus"

# A file added to a corpus is a difference, named.
cp -r "$TMP/short" "$TMP/added"
cp "$TMP/short/spin/contention.ndjson" "$TMP/added/spin/extra.ndjson"
expect_exit 7 "a file added to a corpus differs" '' "$CAPTURE" verify "$TMP/added"
grep -q '^  altered: spin/extra.ndjson is in the corpus but not in MANIFEST.json$' \
	"$TMP/.stdout" && ok "the added file is named" ||
	not_ok "the added file is named" "$(cat "$TMP/.stdout")"
[ -z "$(ls -A "$TMPDIR")" ] && ok "no scratch corpus left behind" ||
	not_ok "no scratch corpus left behind" "$(ls "$TMPDIR")"

# A failed run removes the parent directories it created, and only those.
printf '{"term":\n' >"$TMP/bad.ndjson"
expect_exit 3 "fold of a bad input fails" 'bad.ndjson:1:' \
	"$CAPTURE" fold etcd "$TMP/bad.ndjson" -o "$TMP/new/sub/x"
[ ! -e "$TMP/new" ] && ok "no parent directory left" ||
	not_ok "no parent directory left" "$(find "$TMP/new")"
mkdir -p "$TMP/kept"
"$CAPTURE" fold etcd "$TMP/bad.ndjson" -o "$TMP/kept/new/x" >/dev/null 2>&1
[ -d "$TMP/kept" ] && [ ! -e "$TMP/kept/new" ] &&
	ok "an existing parent stays, the created one goes" ||
	not_ok "an existing parent stays, the created one goes" "$(find "$TMP/kept")"

# Replacing a corpus: one RENAME_EXCHANGE, the old one removed.
cp -r "$TMP/short" "$TMP/again"
strace -f -qq -e trace=rename,renameat,renameat2 -o "$TMP/strace" \
	"$CAPTURE" fold spin "$log" -o "$TMP/again" >/dev/null 2>&1
if grep -q "renameat2(.*\"$TMP/again.tmp-.*\"$TMP/again\", RENAME_EXCHANGE) = 0" \
	"$TMP/strace"; then
	ok "an existing corpus is swapped with RENAME_EXCHANGE"
else
	not_ok "an existing corpus is swapped with RENAME_EXCHANGE" "$(grep rename "$TMP/strace" | tail -n 3)"
fi
same_bytes "the replaced corpus is whole" "$TMP/short/MANIFEST.json" "$TMP/again/MANIFEST.json"
compgen -G "$TMP/again.*" >/dev/null && not_ok "nothing beside it" "$(ls -d "$TMP"/again.*)" ||
	ok "nothing beside it"

# Output paths that cannot be written are usage errors naming the path.
"$CAPTURE" convert "$TMP/short/spin/contention.ndjson" "$TMP/conv.ndjson" 2>/dev/null
expect_exit 2 "convert into a missing directory" "output $TMP/nodir/x: no directory $TMP/nodir" \
	"$CAPTURE" convert "$TMP/conv.ndjson" "$TMP/nodir/x"
expect_exit 2 "convert onto a directory" "output $TMP/short is a directory: not replacing it" \
	"$CAPTURE" convert "$TMP/conv.ndjson" "$TMP/short"
# Only a regular file is replaced: the rename would turn a
# FIFO or a symbolic link into a regular file (a device node, which needs
# root: test-output-root.sh).
source "$TESTS_DIR/robust/not-replaced.sh"
mkfifo "$TMP/fifo"
ln -s "$TMP/conv.ndjson" "$TMP/link"
not_replaced "$TMP/fifo" "a FIFO" "$TMP/conv.ndjson"
not_replaced "$TMP/link" "a symbolic link" "$TMP/conv.ndjson"
"$CAPTURE" fold spin "$log" -o "$TMP/linked" >/dev/null
ln -s "$TMP/linked" "$TMP/corpus-link"
expect_exit 2 "-o naming a symbolic link" "output $TMP/corpus-link is a symbolic link" \
	"$CAPTURE" fold spin "$log" -o "$TMP/corpus-link"
[ -L "$TMP/corpus-link" ] && ok "-o naming a symbolic link: the link stays" ||
	not_ok "-o naming a symbolic link: the link stays" "$(ls -ld "$TMP/corpus-link")"
touch "$TMP/afile"
expect_exit 2 "-o under a regular file" "output $TMP/afile/x: cannot create" \
	"$CAPTURE" fold spin "$log" -o "$TMP/afile/x"
if [ "$(id -u)" != 0 ]; then
	mkdir -m 555 "$TMP/ro"
	expect_exit 2 "-o under a read-only directory" "output $TMP/ro/x: cannot create" \
		"$CAPTURE" fold spin "$log" -o "$TMP/ro/x"
fi
