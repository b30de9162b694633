# Shared helpers for test scripts (tests/<area>/test-*.sh).  Source it.
#
# Each check prints "ok - NAME" or "not ok - NAME: why"; tests/run counts
# them.  What a script needs (root, QEMU, Go...) its header says
# ("# needs: ...", tests/README.md): tests/run skips it when a need is
# missing; run by hand, it fails here with the reason.
set -u
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$TESTS_DIR/needs.sh"
ROOT=$(cd "$TESTS_DIR/.." && pwd)
REF=${CAPTURE_REFERENCE:-$ROOT/../shared/reference}
# The sanitizer build is what the tests run.
CAPTURE=${CAPTURE:-$ROOT/build/asan/capture}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $1"; }
# not_ok NAME WHY: WHY's lines after its first go on "#   " lines, which
# tests/run shows with the failed check.
not_ok() {
	local first
	first=${2%%$'\n'*}
	echo "not ok - $1: $first"
	[ "$first" = "$2" ] || printf '%s\n' "${2#*$'\n'}" | sed 's/^/#   /'
}

# Run by hand (bash tests/DIR/test-X.sh): the needs of its header first.
if [ -z "${TESTS_NEEDS_CHECKED:-}" ]; then
	for _need in $(header_words "$0" needs); do
		_why=$(need_missing "$_need") || continue
		not_ok "$(basename "$0"): needs $_need" "$_why"
		exit 1
	done
	unset _need _why
fi

# noted CMD...: CMD with its stderr kept for why (its stdout as given).
noted() { "$@" 2>"$TMP/.why"; }
# why: what the last noted command said on stderr (its last 3 lines), for
# a not_ok: capture's own message, not just that it failed.
why() {
	if [ -s "$TMP/.why" ]; then tail -n 3 "$TMP/.why"; else echo "(it said nothing on stderr)"; fi
}

# check NAME CMD...: passes when CMD exits 0.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$(printf '%s' "$out" | tail -n 3)"; fi
}

# expect_exit CODE NAME PATTERN CMD...: CMD must exit with CODE and its
# stderr must match the extended regex PATTERN (e.g. 'file.log:12:'; '' for any).
expect_exit() {
	local code=$1 name=$2 pattern=$3; shift 3
	local rc=0
	"$@" >"$TMP/.stdout" 2>"$TMP/.stderr" || rc=$?
	if [ "$rc" != "$code" ]; then
		not_ok "$name" "exit $rc, expected $code; stderr: $(tail -n 2 "$TMP/.stderr")"
	elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$TMP/.stderr"; then
		not_ok "$name" "stderr lacks /$pattern/: $(tail -n 2 "$TMP/.stderr")"
	else
		ok "$name"
	fi
}

# same_bytes NAME A B: files identical.
same_bytes() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$2" "$3" | head -n 5)"; fi
}

# kept WHAT DIR...: the DIRs copied to build/test-logs/kept/SCRIPT/WHAT/
# ($TMP goes when the script ends), and a line that says where, for the
# not_ok of two outputs that differ.
kept() {
	local what=$1 to
	to=build/test-logs/kept/$(basename "$0" .sh)/$what
	shift
	rm -rf "${ROOT:?}/$to" && mkdir -p "$ROOT/$to" && cp -r "$@" "$ROOT/$to/" &&
		echo "kept in $to/"
}

# first_difference A B: where files A and B first differ: the line and
# 100 characters of each from a little before the first differing one
# (a window's line is longer than a message).
first_difference() {
	python3 - "$1" "$2" <<'PY'
import sys
a, b = (open(p, errors="replace").read().split("\n") for p in sys.argv[1:3])
for n, (x, y) in enumerate(zip(a + [""] * len(b), b + [""] * len(a)), 1):
    if x != y:
        c = next((i for i, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
        c = max(c - 30, 0)
        print("line %d, from column %d:" % (n, c + 1))
        print("< " + x[c:c + 100])
        print("> " + y[c:c + 100])
        break
PY
}

# no_build_warning NAME LOG: a build's log (a scenario module's, built with
# the kernel's own flags) is there and names no compiler warning.
no_build_warning() {
	if [ ! -s "$2" ]; then
		not_ok "$1" "no build log $2"
	elif grep -q 'warning:' "$2"; then
		not_ok "$1" "$(grep -m 2 'warning:' "$2")"
	else
		ok "$1"
	fi
}

# nothing_left NAME DIR: a failed run left no DIR and no DIR.tmp-*.
nothing_left() {
	if [ -e "$2" ] || compgen -G "$2.tmp-*" >/dev/null; then
		not_ok "$1" "$(ls -d "$2"*)"
	else
		ok "$1"
	fi
}

# held_fifo FILE: $TMP/fifo, whose writer gives the first 5 lines of FILE,
# then holds it open (its pid in $holder): a reader of it waits there.
held_fifo() {
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	{ head -n 5 "$1"; exec sleep 60; } >"$TMP/fifo" &
	holder=$!
}

# started_then PATTERN PID: wait (10 s at most) until a path matches
# PATTERN while PID runs; 0 if it did.
started_then() {
	local i
	for ((i = 0; i < 1000; i++)); do
		compgen -G "$1" >/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}
