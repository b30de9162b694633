# Nothing a user has is lost: an output replaces only what is
# capture's (a corpus by its manifest's content, a file only with
# --force), never an input; every write to standard output is checked;
# odd -o paths and contradicting convert options are usage errors before
# any work; outputs get the umask's modes, a replaced one keeps its own; a
# manifest that cannot be read is not called missing; an END count below
# the stream is bad input.  Hermetic: recorded logs only.
# needs: reference node
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
log=$ROOT/tests/spin/contention.log
ref=$REF/sysmobench-corpora/spin
export TMPDIR=$TMP/scratch
mkdir -p "$TMPDIR"

# tree DIR: every path, type, mode and sha256 under DIR (what must not change).
tree() {
	find "$1" -printf '%p %y %m\n' | sort
	find "$1" -type f -exec sha256sum {} + | sort
}
# unchanged NAME DIR BEFORE: DIR is as BEFORE (a tree) says.
unchanged() {
	[ "$3" = "$(tree "$2")" ] && ok "$1" || not_ok "$1" "$(diff <(echo "$3") <(tree "$2") | head -n 4)"
}

"$CAPTURE" fold spin "$log" -o "$TMP/c" >/dev/null
win=$TMP/c/spin/contention.ndjson

# --- a corpus is known by its manifest's content, not by its name -------
mkdir "$TMP/theirs"
echo '{}' >"$TMP/theirs/MANIFEST.json"
echo precious >"$TMP/theirs/thesis.tex"
before=$(tree "$TMP/theirs")
expect_exit 2 "-o a directory with an unrelated MANIFEST.json" \
	"$TMP/theirs exists and is not a corpus capture wrote \(its MANIFEST.json is not one capture writes\)" \
	"$CAPTURE" fold spin "$log" -o "$TMP/theirs"
unchanged "the unrelated directory is untouched" "$TMP/theirs" "$before"
: >"$TMP/theirs/MANIFEST.json"
expect_exit 2 "-o a directory with an empty MANIFEST.json" 'not a corpus capture wrote' \
	"$CAPTURE" fold spin "$log" -o "$TMP/theirs"
cp -r "$TMP/c" "$TMP/added"
echo notes >"$TMP/added/notes.txt"
before=$(tree "$TMP/added")
expect_exit 2 "-o a corpus someone added a file to" \
	'holds a file its MANIFEST.json does not list: notes.txt' \
	"$CAPTURE" fold spin "$log" -o "$TMP/added"
unchanged "the corpus and the added file stay" "$TMP/added" "$before"
echo precious >"$TMP/afile"
expect_exit 2 "-o a regular file" "$TMP/afile exists and is not a corpus capture wrote \(not a directory\)" \
	"$CAPTURE" fold spin "$log" -o "$TMP/afile"
[ "$(cat "$TMP/afile")" = precious ] && ok "-o a regular file: it stays" || not_ok "-o a regular file: it stays" "changed"
cp -r "$TMP/c" "$TMP/again"
expect_exit 0 "-o a corpus capture wrote is replaced" '' \
	"$CAPTURE" fold spin "$log" -o "$TMP/again"

# --- an output that is or holds an input: refused before any work -------
cp -r "$TMP/c" "$TMP/own"
mkdir "$TMP/own/raw"
cp "$log" "$TMP/own/raw/contention.log"
before=$(tree "$TMP/own")
expect_exit 2 "fold of a corpus's raw file back into it (-o)" \
	"output $TMP/own would replace input $TMP/own/raw/contention.log" \
	"$CAPTURE" fold spin "$TMP/own/raw/contention.log" -o "$TMP/own"
unchanged "the corpus and its raw file stay" "$TMP/own" "$before"
mkdir -p "$TMP/cwd/corpus"
cp -r "$TMP/own" "$TMP/cwd/corpus/spin"
(cd "$TMP/cwd" && expect_exit 2 "fold into the default output holding the input" \
	'output corpus/spin would replace input corpus/spin/raw/contention.log' \
	"$CAPTURE" fold spin corpus/spin/raw/contention.log)
[ -f "$TMP/cwd/corpus/spin/raw/contention.log" ] && ok "the default output's raw file stays" ||
	not_ok "the default output's raw file stays" "$(ls -R "$TMP/cwd")"
cp -r "$REF/pgo-traces/locksvc/1029352561734837753" "$TMP/pgo-run"
chmod -R u+w "$TMP/pgo-run"
expect_exit 2 "fold -o inside an input directory" \
	"output $TMP/pgo-run/out lies inside input $TMP/pgo-run" \
	"$CAPTURE" fold locksvc "$TMP/pgo-run" -o "$TMP/pgo-run/out"
[ ! -e "$TMP/pgo-run/out" ] && ok "fold -o inside an input directory: nothing written" ||
	not_ok "fold -o inside an input directory: nothing written" "$(ls "$TMP/pgo-run")"
mkdir -p "$TMP/globbed"
cp "$ref"/*.ndjson "$TMP/globbed/"
cp "$ref/spin_seq.ndjson" "$TMP/globbed/x.svg"
before=$(tree "$TMP/globbed")
set -- "$TMP/globbed"/*.ndjson
expect_exit 2 "audit --svg with a glob: the first window file is no SVG" \
	"--svg $1: its name says a window file, not an SVG" "$CAPTURE" audit --svg "$@"
expect_exit 2 "audit --force --svg with a glob: still refused" \
	"--svg $1: its name says a window file" "$CAPTURE" audit --force --svg "$@"
expect_exit 2 "audit --svg onto one of its inputs" \
	"output $TMP/globbed/x.svg would replace input $TMP/globbed/x.svg" \
	"$CAPTURE" audit --force --svg "$TMP/globbed/x.svg" "$TMP/globbed"/*.ndjson "$TMP/globbed/x.svg"
unchanged "the window files stay" "$TMP/globbed" "$before"
cp "$win" "$TMP/in.ndjson"
expect_exit 2 "convert IN IN" "output $TMP/in.ndjson would replace input $TMP/in.ndjson" \
	"$CAPTURE" convert --force "$TMP/in.ndjson" "$TMP/in.ndjson"
ln "$TMP/in.ndjson" "$TMP/hard.ndjson"
expect_exit 2 "convert onto a hard link of IN" "would replace input $TMP/in.ndjson" \
	"$CAPTURE" convert --force "$TMP/in.ndjson" "$TMP/hard.ndjson"
same_bytes "IN is untouched" "$win" "$TMP/in.ndjson"

# --- an existing file output only with --force, its mode kept ----------
echo mine >"$TMP/mine.txt"
chmod 640 "$TMP/mine.txt"
expect_exit 2 "convert onto an existing file" \
	"output $TMP/mine.txt exists: not replacing it without --force" \
	"$CAPTURE" convert "$win" "$TMP/mine.txt"
expect_exit 2 "audit --svg onto an existing file" \
	"output $TMP/mine.txt exists: not replacing it without --force" \
	"$CAPTURE" audit --svg "$TMP/mine.txt" "$win"
[ "$(cat "$TMP/mine.txt")" = mine ] && ok "the existing file stays" ||
	not_ok "the existing file stays" "$(head -c 100 "$TMP/mine.txt")"
expect_exit 0 "convert --force replaces it" '' "$CAPTURE" convert --force "$win" "$TMP/mine.txt"
same_bytes "convert --force wrote the windows" "$win" "$TMP/mine.txt"
[ "$(stat -c %a "$TMP/mine.txt")" = 640 ] && ok "a replaced file keeps its mode" ||
	not_ok "a replaced file keeps its mode" "$(stat -c %a "$TMP/mine.txt")"

# --- modes: the umask's, or the replaced corpus's ----------------------
(umask 002 && "$CAPTURE" fold spin "$log" -o "$TMP/group/c" >/dev/null &&
	"$CAPTURE" convert "$win" "$TMP/group/conv.ndjson")
modes=$(cd "$TMP/group" && stat -c '%a %n' c c/spin c/spin/contention.ndjson c/MANIFEST.json conv.ndjson | tr '\n' ' ')
[ "$modes" = "775 c 775 c/spin 664 c/spin/contention.ndjson 664 c/MANIFEST.json 664 conv.ndjson " ] &&
	ok "umask 002: directories 775, files 664" || not_ok "umask 002: directories 775, files 664" "$modes"
chmod 750 "$TMP/group/c"
"$CAPTURE" fold spin "$log" -o "$TMP/group/c" >/dev/null
[ "$(stat -c %a "$TMP/group/c")" = 750 ] && ok "a replaced corpus keeps its mode" ||
	not_ok "a replaced corpus keeps its mode" "$(stat -c %a "$TMP/group/c")"

# --- a manifest that cannot be read is not "missing" --------------------
# Root reads any file: as root, capture runs as nobody.
if [ "$(id -u)" = 0 ]; then
	as_reader() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
	as_reader() { "$@"; }
fi
chmod 755 "$TMP"
mkdir -m 777 "$TMP/shared"
cp -r "$TMP/c" "$TMP/shared/c"
chmod 000 "$TMP/shared/c/MANIFEST.json"
expect_exit 2 "fold -o over an unreadable manifest: EACCES, not missing" \
	"cannot read $TMP/shared/c/MANIFEST.json: Permission denied" \
	as_reader "$CAPTURE" fold spin "$log" -o "$TMP/shared/c"
expect_exit 3 "audit of an unreadable manifest: EACCES, not missing" \
	"MANIFEST.json: cannot read: Permission denied" as_reader "$CAPTURE" audit "$TMP/shared/c"

# --- every write to standard output checked -----------------------------
to_full() { "$@" >/dev/full; }
for cmd in "convert $win -" "audit --json $win" "audit $win" "check spin $log" "list"; do
	read -r -a args <<<"$cmd"
	expect_exit 6 "$cmd > /dev/full: exit 6 naming the cause" \
		'write error on standard output: No space left on device' \
		to_full "$CAPTURE" "${args[@]}"
done
expect_exit 6 "grade --json > /dev/full: exit 6 naming the cause" \
	'write error on standard output: No space left on device' \
	to_full "$CAPTURE" grade --json --exec "node $ROOT/tests/graders/spin-next.js" "$ref"
expect_exit 2 "a failure keeps its own code with stdout full" 'no directory' \
	to_full "$CAPTURE" convert "$win" "$TMP/nodir/x"

# --- canonical IN: OUT a directory of files, through the same checks ---
# OUT/TRACE.ndjson replaces a file only with --force,
# never through a symbolic link, never into an input; a trace_id is a
# file's name only if it names no other place; all written or none.
"$CAPTURE" fold spin "$log" "$ROOT"/tests/spin/domain/01-free.ftrace \
	--form canonical -o "$TMP/canon" >/dev/null
canon=$TMP/canon
mkdir "$TMP/cout"
echo precious >"$TMP/cout/contention.ndjson"
chmod 640 "$TMP/cout/contention.ndjson"
before=$(tree "$TMP/cout")
expect_exit 2 "convert CANONICAL DIR: an existing OUT/TRACE.ndjson needs --force" \
	"output $TMP/cout/contention.ndjson exists: not replacing it without --force" \
	"$CAPTURE" convert "$canon" "$TMP/cout"
unchanged "convert CANONICAL DIR: nothing written, the user's file stays" "$TMP/cout" "$before"
expect_exit 0 "convert --force CANONICAL DIR replaces it" '' \
	"$CAPTURE" convert --force "$canon" "$TMP/cout"
"$CAPTURE" fold spin "$log" -o "$TMP/cevent" >/dev/null
same_bytes "convert --force CANONICAL DIR: the trace's windows" \
	"$TMP/cevent/spin/contention.ndjson" "$TMP/cout/contention.ndjson"
[ "$(stat -c %a "$TMP/cout/contention.ndjson")" = 640 ] &&
	ok "convert --force CANONICAL DIR: a replaced file keeps its mode" ||
	not_ok "convert --force CANONICAL DIR: a replaced file keeps its mode" \
		"$(stat -c %a "$TMP/cout/contention.ndjson")"
mkdir "$TMP/linked"
ln -s "$TMP/linked" "$TMP/clink"
for out in "$TMP/clink" "$TMP/clink/"; do
	expect_exit 2 "convert CANONICAL through a symbolic link ($out)" \
		"output $TMP/clink is a symbolic link: not writing through it" \
		"$CAPTURE" convert --force "$canon" "$out"
done
[ -z "$(ls -A "$TMP/linked")" ] && ok "convert CANONICAL LINK: nothing written where it points" ||
	not_ok "convert CANONICAL LINK: nothing written where it points" "$(ls -A "$TMP/linked")"
before=$(tree "$canon")
expect_exit 2 "convert C C: the input corpus is no output" \
	"output $canon would write into input $canon: give another output" \
	"$CAPTURE" convert --force "$canon" "$canon"
expect_exit 2 "convert C C/sub: nor a directory inside it" \
	"output $canon/spin lies inside input $canon: give another output" \
	"$CAPTURE" convert --force "$canon" "$canon/spin"
unchanged "convert into the input: the corpus stays as it was" "$canon" "$before"
# A canonical file converted beside itself: its trace's file would be it.
mkdir "$TMP/cdir"
"$CAPTURE" convert --form canonical "$win" "$TMP/cdir/contention.ndjson"
cp "$TMP/cdir/contention.ndjson" "$TMP/one.canon.ndjson"
expect_exit 2 "convert DIR/TRACE.ndjson DIR: a trace's file that is the input" \
	"output $TMP/cdir/contention.ndjson would replace input $TMP/cdir/contention.ndjson" \
	"$CAPTURE" convert --force "$TMP/cdir/contention.ndjson" "$TMP/cdir"
same_bytes "convert DIR/TRACE.ndjson DIR: the input stays" "$TMP/one.canon.ndjson" \
	"$TMP/cdir/contention.ndjson"
(cd "$TMP" && expect_exit 2 "convert CANONICAL -: standard output holds no directory" \
	"output -: canonical input converts into a directory of files, OUT/TRACE.ndjson: give a directory" \
	"$CAPTURE" convert "$canon" -)
(cd "$TMP" && expect_exit 2 "convert CANONICAL-FILE -: the same" \
	"output -: canonical input converts into a directory of files" \
	"$CAPTURE" convert "$TMP/one.canon.ndjson" -)
[ ! -e "$TMP/-" ] && ok "convert CANONICAL -: no directory named -" ||
	not_ok "convert CANONICAL -: no directory named -" "$TMP/- exists"
# A trace_id names a file in OUT, nothing else: ../victim would be OUT's
# sibling.  Refused as bad input at its line; nothing written anywhere.
mkdir "$TMP/evil"
sed 's/"trace_id": "contention"/"trace_id": "..\/victim"/' \
	"$canon/spin/AcquireLock.ndjson" >"$TMP/evil/AcquireLock.ndjson"
sed 's/"trace_id": "contention"/"trace_id": "..\/victim"/' \
	"$canon/spin/ReleaseLock.ndjson" >"$TMP/evil/ReleaseLock.ndjson"
echo precious >"$TMP/victim.ndjson"
expect_exit 3 "a trace_id ../victim is no file name in OUT" \
	"evil/(AcquireLock|ReleaseLock).ndjson:[0-9]+: trace_id '../victim' cannot name a file in $TMP/eout: it starts with a dot" \
	"$CAPTURE" convert --force "$TMP/evil" "$TMP/eout"
[ "$(cat "$TMP/victim.ndjson")" = precious ] && [ ! -e "$TMP/eout" ] &&
	ok "a trace_id ../victim: its sibling stays, nothing written" ||
	not_ok "a trace_id ../victim: its sibling stays, nothing written" "$(ls "$TMP")"
# Whole or nothing: the second trace's failure leaves the first unwritten.
mkdir -p "$TMP/half/contention.ndjson"
expect_exit 2 "convert CANONICAL DIR: a trace's file that is a directory" \
	"output $TMP/half/contention.ndjson is a directory: not replacing it" \
	"$CAPTURE" convert --force "$canon" "$TMP/half"
[ "$(ls -A "$TMP/half")" = contention.ndjson ] &&
	ok "convert CANONICAL DIR: one trace refused, the other not written" ||
	not_ok "convert CANONICAL DIR: one trace refused, the other not written" "$(ls -A "$TMP/half")"
sed 's/"trace_id": "contention"/"trace_id": "sub\/x"/' "$canon/spin/AcquireLock.ndjson" >"$TMP/evil/AcquireLock.ndjson"
sed 's/"trace_id": "contention"/"trace_id": "sub\/x"/' "$canon/spin/ReleaseLock.ndjson" >"$TMP/evil/ReleaseLock.ndjson"
mkdir "$TMP/eout"
expect_exit 3 "a trace_id sub/x after a good trace: bad input, not usage" \
	"trace_id 'sub/x' cannot name a file" \
	"$CAPTURE" convert "$TMP/evil" "$TMP/eout"
[ -z "$(ls -A "$TMP/eout")" ] && ok "a trace_id sub/x: no trace written" ||
	not_ok "a trace_id sub/x: no trace written" "$(ls -A "$TMP/eout")"

# --- usage checked before work ------------------------------------------
mkdir -p "$TMP/odd"
for o in "" . .. / - "$TMP/odd/." "$TMP/odd/.." "$TMP/odd/../"; do
	(cd "$TMP/odd" && expect_exit 2 "-o '$o' is a usage error" "-o '$o': not a name a corpus can take" \
		"$CAPTURE" fold spin "$log" -o "$o")
done
(cd "$TMP/odd" && expect_exit 2 "audit --svg -: standard output is no file here" \
	"output -: standard output is no file here: give a file name" \
	"$CAPTURE" audit --svg - "$win")
[ -z "$(ls -A "$TMP/odd")" ] && ok "odd -o paths: nothing ran, nothing written" ||
	not_ok "odd -o paths: nothing ran, nothing written" "$(ls -A "$TMP/odd")"
expect_exit 2 "convert --system on the event form is checked" \
	"$win holds spin windows, not etcd \(--system\)\$" \
	"$CAPTURE" convert --system etcd "$win" "$TMP/sys.ndjson"
[ ! -e "$TMP/sys.ndjson" ] && ok "convert --system: nothing written" || not_ok "convert --system: nothing written" "it is there"
expect_exit 2 "convert --form event onto OUT.itf.json" \
	"output $TMP/e.itf.json: its name says ITF form, --form says event" \
	"$CAPTURE" convert --form event "$win" "$TMP/e.itf.json"
expect_exit 2 "convert --form itf onto OUT.ndjson" \
	"output $TMP/i.ndjson: its name says event or stream form, --form says itf" \
	"$CAPTURE" convert --form itf "$win" "$TMP/i.ndjson"
"$CAPTURE" convert "$win" "$TMP/named.itf.json" && "$CAPTURE" convert "$TMP/named.itf.json" "$TMP/named.ndjson" &&
	same_bytes "OUT.itf.json without --form is ITF, which reads back" "$win" "$TMP/named.ndjson" ||
	not_ok "OUT.itf.json without --form is ITF" "convert failed"

# --- a count that disagrees with the stream is bad input ----------------
sed 's/^CAPTURE END 13$/CAPTURE END 11/' "$log" >"$TMP/more.log"
expect_exit 3 "more events than CAPTURE END counts: bad input at the marker" \
	'more.log:15: CAPTURE END counts 11 events, the stream has 13 before it' \
	"$CAPTURE" check spin "$TMP/more.log"
