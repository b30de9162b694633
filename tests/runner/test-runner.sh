# tests/run itself, on a tree of small scripts and unit tests of its own
# (tests/run, needs.sh and lib.sh copied beside them): result lines name
# their script, a failed script's whole output is kept and its path
# printed, blocks do not interleave, a missing need skips with its reason
# (fails under CI=true), an unknown need and a script without a check
# fail, scripts run side by side but never two of one lock, --hermetic
# leaves out what needs root, and the last line counts.
# needs:
source "$(dirname "$0")/../lib.sh"
tree=$TMP/tree
mkdir -p "$tree/tests/a" "$tree/tests/b" "$tree/tests/c" "$tree/tests/d" "$tree/tests/e"
cp "$ROOT/tests/run" "$ROOT/tests/needs.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
sync=$TMP/sync   # where the scripts below meet
mkdir -p "$sync"

script() { # PATH LINE...: a script of these lines after lib.sh
	local path=$tree/tests/$1; shift
	{ echo '# A script of the runner test.'; printf '%s\n' "$@"; } >"$path.tmp"
	# its header first, then lib.sh
	{ grep '^#' "$path.tmp"; echo 'source "$(dirname "$0")/../lib.sh"'
	  grep -v '^#' "$path.tmp"; } >"$path"
	rm "$path.tmp"
}
script a/test-pass.sh 'ok "first"' 'sleep 0.2' 'ok "second"'
script a/test-fail.sh 'ok "fine"' 'echo "capture: in.log:3: the reason" >&2' \
	'not_ok "broken" "line one
line two"'
script b/test-skip.sh '# needs: reference' 'ok "never run"'
script b/test-typo.sh '# needs: nosuchneed' 'ok "never run"'
script c/test-nocheck.sh 'echo "no result line"'
script c/test-exit.sh 'ok "then"' 'echo "what it said last"' 'exit 3'
# Side by side: each waits (5 s at most) to see the other started.
for x in p q; do
	y=$([ $x = p ] && echo q || echo p)
	script d/test-$x.sh "touch $sync/$x" \
		"for i in \$(seq 50); do [ -e $sync/$y ] && break; sleep 0.1; done" \
		"[ -e $sync/$y ] && ok 'saw $y running' || not_ok 'saw $y running' 'it never started'"
done
# Unit tests: a binary per tests/unit/test-*.c, its needs in its comment.
mkdir -p "$tree/tests/unit" "$tree/build/asan/tests"
printf '/*\n * A unit test.\n */\n' >"$tree/tests/unit/test-u.c"
printf '/*\n * A unit test.\n * needs: reference\n */\n' >"$tree/tests/unit/test-v.c"
printf '#!/bin/sh\necho "ok - unit check"\n' >"$tree/build/asan/tests/test-u"
cp "$tree/build/asan/tests/test-u" "$tree/build/asan/tests/test-v"
chmod +x "$tree"/build/asan/tests/*
script b/test-heavy.sh '# needs: root reference' 'ok "never run"'   # skipped, root or not
# One lock: neither sees the other's mark while it holds its own.
for x in l m; do
	script e/test-$x.sh '# locks: shared' "touch $sync/$x.in" 'sleep 0.5' \
		"ls $sync/*.in | grep -qv '/$x.in\$' && not_ok 'alone' \"\$(ls $sync)\" || ok 'alone'" \
		"rm $sync/$x.in"
done

runner() { # ARGS...: tests/run in the tree, CI unset; its output in $TMP/out
	(cd "$tree" && env -u CI CAPTURE_REFERENCE=$TMP/none tests/run "$@") >"$TMP/out" 2>&1
}
has() { # NAME REGEX: a line of $TMP/out matches
	grep -Eq -- "$2" "$TMP/out" && ok "$1" || not_ok "$1" "$(cat "$TMP/out")"
}

rc=0
runner -j 4 || rc=$?
[ "$rc" = 1 ] && ok "a failure: exit 1" || not_ok "a failure: exit 1" "exit $rc"
has "result lines name their script" '^ok - tests/a/test-pass.sh: second$'
has "a failed check names its script" '^not ok - tests/a/test-fail.sh: broken: line one$'
has "its reason's next lines follow it" '^#   line two$'
has "each script's time is printed" '^# tests/a/test-pass.sh: 2 passed in [0-9.]+ s$'
has "a failed script's log path is printed" \
	'^# tests/a/test-fail.sh: 1 passed, 1 failed in [0-9.]+ s; whole output: build/test-logs/a/test-fail.log$'
grep -qx 'capture: in.log:3: the reason' "$tree/build/test-logs/a/test-fail.log" &&
	ok "the log holds the script's whole output, stderr too" ||
	not_ok "the log holds the script's whole output, stderr too" "$(ls -R "$tree/build")"
[ ! -e "$tree/build/test-logs/a/test-pass.log" ] && ok "a passing script leaves no log" ||
	not_ok "a passing script leaves no log" "$(ls "$tree/build/test-logs/a")"
has "a missing need skips, with its reason" \
	"^skip - tests/b/test-skip.sh: needs reference: no reference corpora at $TMP/none"
has "an unknown need fails" "^not ok - tests/b/test-typo.sh: needs nosuchneed: no such need"
has "a script without a check fails" '^not ok - tests/c/test-nocheck.sh: ran no check$'
has "a script exiting non-zero without a not ok fails" '^not ok - tests/c/test-exit.sh: exited 3$'
has "with its last lines" '^#   what it said last$'
has "a unit test runs, named by its binary" '^ok - build/asan/tests/test-u: unit check$'
has "a unit test's needs skip it" '^skip - build/asan/tests/test-v: needs reference: '
has "scripts run side by side" '^ok - tests/d/test-p.sh: saw q running$'
has "a lock keeps its scripts apart" '^ok - tests/e/test-l.sh: alone$'
has "and the other" '^ok - tests/e/test-m.sh: alone$'
# Blocks: the lines of one script come together.
awk '/^(ok|not ok) - tests\// { split($0, w, " - "); split(w[2], s, ":")
	if (s[1] != last && seen[s[1]]++) bad = bad " " s[1]; last = s[1] }
	END { print bad }' "$TMP/out" >"$TMP/mixed"
[ -z "$(tr -d ' \n' <"$TMP/mixed")" ] && ok "one block per script, not interleaved" ||
	not_ok "one block per script, not interleaved" "$(cat "$TMP/mixed")"
# pass 2, fail 1, exit 1, p, q, l, m, test-u 1 each: 9 passed; fail, typo,
# nocheck, exit: 4 failed; test-skip, test-heavy, test-v skipped
[ "$(tail -n 1 "$TMP/out")" = "9 passed, 4 failed, 3 skipped" ] &&
	ok "the last line: N passed, N failed, N skipped" ||
	not_ok "the last line: N passed, N failed, N skipped" "$(tail -n 1 "$TMP/out")"

rm -f "$sync"/*
(cd "$tree" && env CI=true CAPTURE_REFERENCE=$TMP/none tests/run b/test-skip) >"$TMP/out" 2>&1
has "under CI=true a missing need fails" '^not ok - tests/b/test-skip.sh: needs reference: '
[ "$(tail -n 1 "$TMP/out")" = "0 passed, 1 failed, 0 skipped" ] && ok "under CI=true nothing skips" ||
	not_ok "under CI=true nothing skips" "$(tail -n 1 "$TMP/out")"

rc=0
runner a/test-pass || rc=$?
[ "$rc" = 0 ] && [ "$(grep -c '^ok - ' "$TMP/out")" = 2 ] && ok "a pattern selects: exit 0, only its checks" ||
	not_ok "a pattern selects: exit 0, only its checks" "exit $rc: $(cat "$TMP/out")"
runner --hermetic b/
has "--hermetic leaves out what needs root" '^# 1 outside the hermetic tier, not run'
grep -q 'test-heavy' "$TMP/out" && not_ok "--hermetic runs none of it" "$(cat "$TMP/out")" ||
	ok "--hermetic runs none of it"
runner -j 0
has "-j 0 is refused" '^tests/run: -j 0: expected a number of jobs$'

# Every script of the tree declares its needs (an empty line for none):
# one without is run as hermetic, and fails for any user who lacks them.
undeclared=$(cd "$ROOT" && for t in tests/*/test-*.sh; do
	sed -n 1,30p "$t" | grep -q '^# needs:' || echo "$t"; done)
[ -z "$undeclared" ] && ok "every test script has a '# needs:' line" ||
	not_ok "every test script has a '# needs:' line" "$(echo $undeclared)"
