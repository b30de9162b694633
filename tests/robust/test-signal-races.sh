#!/bin/bash
# A signal that comes between two steps the cleanups must see as one:
# making a temporary and registering its removal, starting a child and
# registering its stop.  strace holds verify's main thread right after
# the first step (delay_exit on the syscall that made the temporary or
# started the child, that thread only: no -f); once what that step made
# is seen, verify gets SIGTERM.  The cleanups must wait for the second
# step, then undo both: exit 143, nothing left in a private $TMPDIR.
# needs: strace
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
log=tests/spin/contention.log
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"
# A corpus of "-": its rerun reads verify's standard input.
"$CAPTURE" fold spin - -o "$TMP/c" <"$log" >/dev/null 2>&1 ||
	{ not_ok "fold a corpus of standard input" "exit $?"; exit 0; }

# race NAME SYSCALLS SEEN: verify under strace, its main thread held 5 s
# after its first SYSCALLS; once a path matches SEEN, SIGTERM to verify
# (the pid its capture-verify.tmp-PID-* names).
race() {
	local name=$1 calls=$2 seen=$3 tracer pid rc=0 i
	held_fifo "$log"
	strace -o /dev/null -e trace="$calls" -e inject="$calls":delay_exit=5000000:when=1 \
		"$CAPTURE" verify "$TMP/c" <"$TMP/fifo" >/dev/null 2>"$TMP/race.err" &
	tracer=$!
	if ! started_then "$seen" "$tracer"; then
		not_ok "$name" "never saw $seen: $(tail -n 2 "$TMP/race.err")"
		kill "$tracer" "$holder" 2>/dev/null
		wait "$tracer" "$holder" 2>/dev/null
		return
	fi
	pid=$(compgen -G "$TMPDIR/capture-verify.tmp-*" | sed -n 's/.*capture-verify\.tmp-\([0-9]*\)-.*/\1/p')
	kill -TERM "$pid"
	wait "$tracer" || rc=$?
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	[ "$rc" = 143 ] && ok "$name: exit 143" ||
		not_ok "$name: exit 143" "exit $rc: $(tail -n 2 "$TMP/race.err")"
	[ -z "$(ls -A "$TMPDIR")" ] && ok "$name: nothing left in \$TMPDIR" ||
		not_ok "$name: nothing left in \$TMPDIR" "$(ls -A "$TMPDIR")"
	rm -rf "${TMPDIR:?}"/*
}

race "SIGTERM between verify's mkdtemp and its cleanup" mkdir,mkdirat \
	"$TMPDIR/capture-verify.tmp-*"
race "SIGTERM between the rerun's start and its cleanup" vfork \
	"$TMPDIR/capture-input.tmp-*"
