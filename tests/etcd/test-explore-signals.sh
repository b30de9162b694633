#!/bin/bash
# SIGTERM and SIGINT while capture etcd --explore shrinks, in the fold of
# a trial: the run ends by the signal with its one message, last, and
# leaves nothing in its private $TMPDIR (no work directory, no
# capture-explore-failed-*: a stopped trial is no finding) and no harness
# running.  The fold is reached deterministically: the with_tla harness
# this run builds (CAPTURE_HOME of its own, a `go` on PATH that puts a
# wrapper in the harness's place) hands the first successful shrink
# trial's trace to the fold through a FIFO whose writer, once the fold
# has opened it, sends the signal and holds it open.  A check that fails
# on a try (the seeded-bug build) still keeps its scenario and says so.
# needs: go goproxy
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin

# A home whose build/etcd is this script's own; the rest is the tree's.
home=$TMP/home
mkdir -p "$home/build/etcd" "$TMP/bin"
for f in "$ROOT"/*; do [ "${f##*/}" = build ] || ln -s "$f" "$home/"; done
for f in "$ROOT"/build/*; do [ "${f##*/}" = etcd ] || ln -s "$f" "$home/build/"; done
go=$(command -v go)
cat >"$TMP/bin/go" <<EOF
#!/bin/bash
# go build -o .../harness-with_tla: the harness goes beside, as .real,
# and the wrapper into its place; with SEEDED_BUG=1, the seeded-bug build.
args=() out=
while [ \$# -gt 0 ]; do
	if [ "\$1" = -o ] && [ "\${2##*/}" = harness-with_tla ]; then
		out=\$2
		args+=(-o "\$2.real")
		shift 2
	elif [ "\$1" = -tags ] && [ "\${SEEDED_BUG:-}" = 1 ]; then
		args+=(-tags "\$2,seeded_bug")
		shift 2
	else
		args+=("\$1")
		shift
	fi
done
"$go" "\${args[@]}" || exit
[ -z "\$out" ] || cp "$TMP/wrapper" "\$out"
EOF
# A shrink trial runs "HARNESS SCENARIO STEPS"; the first of them that
# succeeds leaves a FIFO as its trace.  Its writer, in the background,
# opens it (so the fold has: its failure cleanup is registered), notes
# its pid, sends the signal (\$SIG) to capture and stays.
cat >"$TMP/wrapper" <<EOF
#!/bin/bash
real=\$0.real
[ -n "\${SIG:-}" ] && [ \$# = 2 ] || exec "\$real" "\$@"
trace=\$(readlink /proc/\$\$/fd/1)
"\$real" "\$@" >"\$trace.full" || exit
mkdir "$TMP/claimed" 2>/dev/null || exec cat "\$trace.full"
rm -f "\$trace"
mkfifo "\$trace"
capture=\$PPID
(
	exec 3>"\$trace"
	echo \$BASHPID >"$TMP/writer"
	kill -\$SIG \$capture
	exec sleep 600
) </dev/null >/dev/null 2>&1 &
EOF
chmod +x "$TMP/bin/go" "$TMP/wrapper"

for sig in TERM INT; do
	tmpdir=$TMP/tmp-$sig
	mkdir "$tmpdir"
	rm -rf "$TMP/claimed" "$TMP/writer"
	code=$((128 + $(kill -l $sig)))
	rc=0
	# A script's background job starts with SIGINT ignored: undo that.
	env --default-signal=INT,TERM SIG=$sig PATH="$TMP/bin:$PATH" CAPTURE_HOME="$home" \
		TMPDIR="$tmpdir" "$CAPTURE" etcd --explore --unguided --seed 3 --budget 4 \
		--via trace -o "$TMP/x-$sig" 2>"$TMP/err-$sig" &
	wait $! || rc=$?
	if [ ! -s "$TMP/writer" ]; then
		not_ok "SIG$sig in a shrink trial's fold" "no shrink trial was held: exit $rc: $(tail -n 3 "$TMP/err-$sig")"
		continue
	fi
	[ "$rc" = "$code" ] && ok "SIG$sig in a shrink trial's fold: exit $code" ||
		not_ok "SIG$sig in a shrink trial's fold: exit $code" "exit $rc: $(tail -n 3 "$TMP/err-$sig")"
	last=$(tail -n 1 "$TMP/err-$sig")
	[ "$last" = "capture: SIG$sig: stopping, removing what this run left" ] &&
		ok "SIG$sig while shrinking: the signal's message is the last" ||
		not_ok "SIG$sig while shrinking: the signal's message is the last" "$(sed -n '/stopping/,$p' "$TMP/err-$sig")"
	left=$(cd "$tmpdir" && find . -mindepth 1)
	[ -z "$left" ] && ok "SIG$sig while shrinking: nothing left in \$TMPDIR" ||
		not_ok "SIG$sig while shrinking: nothing left in \$TMPDIR" "$left"
	running=$(pgrep -af -- "$tmpdir")
	[ -z "$running" ] && ok "SIG$sig while shrinking: no harness left running" ||
		not_ok "SIG$sig while shrinking: no harness left running" "$running"
	nothing_left "SIG$sig while shrinking: no corpus" "$TMP/x-$sig"
	kill "$(cat "$TMP/writer")"
done

# A check that fails on a try still keeps its scenario, and says so: the
# seeded-bug harness's trace sends node 2's term back.
tmpdir=$TMP/tmp-bug
mkdir "$tmpdir"
expect_exit 4 "a check failing on a try: exit 4, its scenario kept and named" \
	"is kept as $tmpdir/capture-explore-failed-" \
	env SEEDED_BUG=1 PATH="$TMP/bin:$PATH" CAPTURE_HOME="$home" TMPDIR="$tmpdir" \
	"$CAPTURE" etcd --explore --unguided --seed 3 --budget 4 --via trace -o "$TMP/x-bug"
kept=$(sed -n 's/.* is kept as //p' "$TMP/.stderr")
[ -n "$kept" ] && [ -s "$kept" ] && [ "$(ls "$tmpdir")" = "${kept##*/}" ] &&
	ok "the failed try's scenario is the one file left in \$TMPDIR" ||
	not_ok "the failed try's scenario is the one file left in \$TMPDIR" "$(ls -l "$tmpdir")"
