#!/usr/bin/env bash
# Every refusal of the live loop keeps its message and exit code: each line
# of refusals.cases is run (in an empty directory, so that no relative path
# exists) and its exit code, stderr and stdout (--help) compared with
# refusals.expected.
# None of them runs a guest, a probe or Go: they are refused first.
# Regenerate after a deliberate change of a message:
#   bash tests/live/test-refusals.sh --record
# needs:
source "$(dirname "$0")/../lib.sh"
here=$TESTS_DIR/live

run_cases() {
	local args
	while IFS= read -r args; do
		case "$args" in '#'*|'') continue ;; esac
		local rc=0
		# shellcheck disable=SC2086  # the words of a case, unquoted
		(cd "$TMP/cwd" && "$CAPTURE" $args) >"$TMP/out" 2>"$TMP/err" || rc=$?
		printf '$ capture %s\n[exit %s]\n' "$args" "$rc"
		cat "$TMP/err"
		[ -s "$TMP/out" ] && { echo '[stdout]'; cat "$TMP/out"; }
	done <"$here/refusals.cases"
}

mkdir -p "$TMP/cwd"
if [ "${1:-}" = --record ]; then
	run_cases >"$here/refusals.expected"
	exit 0
fi
run_cases >"$TMP/got"
diff -u "$here/refusals.expected" "$TMP/got" >"$TMP/diff"
check "every refusal of refusals.cases keeps its message and exit code" \
	sh -c "! cat '$TMP/diff' | grep -q ."
[ -s "$TMP/diff" ] && head -n 40 "$TMP/diff" | sed 's/^/#   /'
check "nothing refused was written" sh -c "[ -z \"\$(ls -A '$TMP/cwd')\" ]"
