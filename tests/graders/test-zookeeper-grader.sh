#!/bin/bash
# tests/graders/zookeeper-next.js, the reference grader of the zookeeper
# projection written from ZooKeeper's FLE TLA+ spec and FastLeaderElection's
# rules: every window of the five captured scenarios (tests/zookeeper)
# passes, through capture grade and through SysMoBench's own validator
# (tv.mjs, the next(state, action, data) contract); each planted wrong
# variant (ZK_MUTANT) fails some window, saying why.
# needs: reference node jq
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
grader="node $here/zookeeper-next.js"
G=$REF/sysmobench-graders

$CAPTURE fold zookeeper "$TESTS_DIR"/zookeeper/0*.ndjson -o "$TMP/zk" >/dev/null 2>&1 ||
	not_ok "fold the captured scenarios" "capture fold failed"
windows=$(jq '[.counts[]] | add' "$TMP/zk/MANIFEST.json")
expect_exit 0 "every window passes ($windows)" '' $CAPTURE grade --json --exec "$grader" "$TMP/zk"
if [ "$(jq -c '.all | [.passed == .windows, .unscoreable]' "$TMP/.stdout")" = "[true,0]" ]; then
	ok "the grader scores all $windows windows, none unscoreable"
else
	not_ok "the grader scores every window" "$(jq -c .all "$TMP/.stdout")"
fi
expect_exit 0 "every window passes under SysMoBench's tv.mjs" '' \
	$CAPTURE grade --exec "node $here/sysmobench-tv.js $G/tv.mjs $here/zookeeper-next.js" "$TMP/zk"

for m in $(node -e "console.log(Object.keys(require('$here/zookeeper-next.js').mutants).join(' '))"); do
	ZK_MUTANT=$m $CAPTURE grade --json --exec "$grader" "$TMP/zk" >"$TMP/m.json" 2>/dev/null
	rc=$?
	failed=$(jq '.all.failed' "$TMP/m.json")
	if [ "$rc" = 4 ] && [ "$failed" -gt 0 ] && [ -n "$(jq -r '.failures[0].why' "$TMP/m.json")" ]; then
		ok "planted $m fails $failed windows ($(jq -r '.failures[0].why' "$TMP/m.json" | head -c 90))"
	else
		not_ok "planted $m fails some window" "exit $rc, $failed failed"
	fi
done
