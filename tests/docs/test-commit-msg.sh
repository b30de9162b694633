#!/bin/bash
# needs:
# The commit-msg hook (scripts/hooks/commit-msg, docs/contributing.md) fed
# messages: a good one passes; a subject over 72 characters, or a subject
# not followed by a blank line, is refused.  Then `make hooks` in a scratch
# repository, and git itself refusing and taking commits through it.
source "$(dirname "$0")/../lib.sh"
HOOK=$ROOT/scripts/hooks/commit-msg

# hook_says NAME WANT MESSAGE: the hook exits WANT (0 or 1) on MESSAGE.
hook_says() {
	local name=$1 want=$2 rc=0
	printf '%b' "$3" >"$TMP/msg"
	sh "$HOOK" "$TMP/msg" 2>"$TMP/err" || rc=$?
	if [ "$rc" = "$want" ]; then ok "$name"; else
		not_ok "$name" "exit $rc, expected $want: $(cat "$TMP/err")"; fi
}

s72=$(printf 'docs: %066d' 0)         # 72 characters
s73=$(printf 'docs: %067d' 0)
body='\n\nWhat was wrong, why this is the fix, what was measured.\n'
hook_says "commit-msg: a good message passes" 0 "spin: one short subject$body"
hook_says "commit-msg: a subject of 72 characters passes" 0 "$s72$body"
hook_says "commit-msg: a subject alone passes" 0 "spin: one short subject\n"
hook_says "commit-msg: 72 characters of UTF-8 are 72, not their bytes" 0 \
	"$(printf 'docs: %063d' 0)→→→$body"
hook_says "commit-msg: git's comment lines are not the message" 0 \
	"\n# Please enter the commit message\nspin: a subject$body# a comment\n"
hook_says "commit-msg: a subject of 73 characters is refused" 1 "$s73$body"
hook_says "commit-msg: no blank line after the subject is refused" 1 \
	"spin: a subject\nand its body at once\n"
if grep -q 'line 2 must be blank' "$TMP/err"; then ok "commit-msg: says which rule"
else not_ok "commit-msg: says which rule" "$(cat "$TMP/err")"; fi

# make hooks, then git commit through the hook, in a scratch repository.
repo=$TMP/repo
git init -q "$repo" && mkdir -p "$repo/scripts" && cp -r "$ROOT/scripts/hooks" "$repo/scripts/"
git -C "$repo" config user.email t@example.org && git -C "$repo" config user.name t
check "make hooks sets core.hooksPath" make -s -C "$repo" -f "$ROOT/Makefile" hooks
if [ "$(git -C "$repo" config core.hooksPath)" = scripts/hooks ]; then
	ok "make hooks: core.hooksPath is scripts/hooks"
else
	not_ok "make hooks: core.hooksPath is scripts/hooks" "$(git -C "$repo" config core.hooksPath)"
fi
expect_exit 1 "git commit refuses a long subject" 'at most 72' \
	git -C "$repo" commit -q --allow-empty -m "$s73"
check "git commit takes a good message" \
	git -C "$repo" commit -q --allow-empty -m "docs: a subject" -m "A body."
