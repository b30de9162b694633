#!/bin/bash
# needs:
# Code and tests say what they pin, not where it came from: no source file
# names an issue ("issue 24", "issue #16.2"); the behaviour it pins says it.
# A planted one is found.
source "$(dirname "$0")/../lib.sh"

# issue_refs DIR: "FILE:LINE: TEXT" of each source line under DIR naming an issue.
issue_refs() {
	git -C "$1" grep -n -I -i -E '\bissues? ?#?[0-9]+' -- \
		'*.c' '*.h' '*.sh' '*.py' '*.go' '*.rs' '*.js' '*.mk' '*.probes' Makefile \
		':!tests/docs/test-history.sh'
}
out=$(issue_refs "$ROOT")
[ -z "$out" ] && ok "no source line names an issue" ||
	not_ok "no source line names an issue" "$(head -n 3 <<<"$out")"

git clone -q "$ROOT" "$TMP/tree" 2>/dev/null
echo '/* the fix of issue 12 */' >>"$TMP/tree/capture/die.c"
git -C "$TMP/tree" add capture/die.c
[ -n "$(issue_refs "$TMP/tree")" ] && ok "a planted issue number is found" ||
	not_ok "a planted issue number is found" "not found"
