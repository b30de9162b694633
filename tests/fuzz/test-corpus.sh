#!/usr/bin/env bash
# Replay the checked-in fuzz corpora: every harness (tests/fuzz/fuzz-*.c,
# built by make asan with ASan+UBSan) runs each file of its corpus
# tests/fuzz/corpus/HARNESS/ once; any crash, sanitizer report or oracle
# failure fails the harness.  Also: the die() hook is in the fuzz build
# only, never in build/capture.
# needs:
. "$(dirname "$0")/../lib.sh"
# A reader that dies returns to the harness with what an exit would have
# freed still allocated: leaks are not findings here (docs/fuzzing.md),
# but for the readers that return their refusals and must not die (a
# death aborts their harness): theirs are checked.
cd "$ROOT"
for src in tests/fuzz/fuzz-*.c; do
	h=$(basename "$src" .c)
	h=${h#fuzz-}
	bin=build/fuzz/fuzz-$h
	files=(tests/fuzz/corpus/"$h"/*)
	case $h in
	gospec | gocover | verdict) leaks=1 ;;
	*) leaks=0 ;;
	esac
	export ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=0
	if [ ! -x "$bin" ]; then
		not_ok "fuzz corpus $h" "$bin not built (make asan)"
	elif [ ! -f "${files[0]}" ]; then
		not_ok "fuzz corpus $h" "tests/fuzz/corpus/$h/ is empty"
	elif out=$("$bin" "${files[@]}" 2>&1); then
		ok "fuzz corpus $h (${#files[@]} inputs)"
	else
		not_ok "fuzz corpus $h" "$(printf '%s\n' "$out" |
			grep -E '^(fuzz:|SUMMARY|Running:|==[0-9]+==ERROR)' | tail -n 3)"
	fi
done
# The hook exists in the fuzz build and nowhere else.
for bin in build/capture "$CAPTURE"; do
	if ! nm "$bin" >/dev/null 2>&1; then
		not_ok "no die hook in $bin" "cannot read its symbols"
	elif nm "$bin" | grep -qw die_hook; then
		not_ok "no die hook in $bin" "die_hook is linked in"
	else
		ok "no die hook in $bin"
	fi
done
nm build/fuzz/fuzz-spin 2>/dev/null | grep -qw die_hook &&
	ok "die hook in the fuzz build" ||
	not_ok "die hook in the fuzz build" "no die_hook in build/fuzz/fuzz-spin"
