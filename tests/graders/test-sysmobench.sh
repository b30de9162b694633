# SysMoBench's own graders (tv.mjs and its reference specs, in
# ../shared/reference/sysmobench-graders) on every corpus they apply to,
# through capture grade's adapter (sysmobench-tv.js): each fails exactly
# the documented disagreements (docs/results/canonical.md) and nothing else, and
# rejects the impossibility windows their state can express.
# needs: reference node python3
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
G=$REF/sysmobench-graders
C=$REF/sysmobench-corpora
spin=$ROOT/tests/spin
targets=ElectionTimeout,HandleVoteRequest,ClientProposal,HandleAppendEntries,HandleHeartbeat

if ! command -v node >/dev/null; then
	not_ok "node for the reference graders" "node missing (Debian package nodejs: make deps)"
	exit 0
fi
# grade NAME SPEC INPUT [ADAPTER OPTIONS...]: the JSON scorecard in $TMP/NAME.json
grade() {
	local name=$1 spec=$2 input=$3; shift 3
	local rc=0
	"$CAPTURE" grade --json ${SYSTEM:+--system "$SYSTEM"} --exec \
		"node $here/sysmobench-tv.js $G/tv.mjs $G/$spec $*" "$input" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 4 ] ||
		not_ok "$name: graded" "exit $rc: $(tail -n 2 "$TMP/$name.err")"
}
# judge NAME RULE: every failure of $TMP/NAME.json is of the documented kind
judge() { check "$1" python3 "$here/sysmobench-judge.py" "$2" "$TMP/$1.json"; }

"$CAPTURE" fold spin "$spin"/domain/*.ftrace "$spin/contention.ftrace" "$spin/block-2cpu.ftrace" \
	-o "$TMP/spin" >/dev/null 2>&1 || not_ok "fold spin" "exit $?"
"$CAPTURE" fold spin-task "$spin"/domain/*.ftrace "$spin/contention.ftrace" "$spin/block-2cpu.ftrace" \
	-o "$TMP/task" >/dev/null 2>&1 || not_ok "fold spin-task" "exit $?"
"$CAPTURE" fold locksvc "$REF"/pgo-traces/locksvc/* -o "$TMP/locksvc" >/dev/null 2>&1 ||
	not_ok "fold locksvc" "exit $?"

grade published-spin reference_spin.js "$C/spin"
judge published-spin none
grade spin reference_spin.js "$TMP/spin"
judge spin spin-non-holder-release
grade spin-task reference_spin.js "$TMP/task" --view spin-task
judge spin-task spin-task-non-holder-release
SYSTEM=spin-task grade spin-task-impossible reference_spin.js "$TMP/task/spin-task/impossible" --view spin-task
judge spin-task-impossible spin-task-impossible
"$CAPTURE" fold spin-spinning "$spin"/domain/*.ftrace --form canonical -o "$TMP/spinning" \
	>/dev/null 2>&1 || not_ok "fold spin-spinning" "exit $?"
SYSTEM=spin-spinning grade spin-spinning-impossible reference_spin.js \
	"$TMP/spinning/spin-spinning/impossible" --view spin-spinning
judge spin-spinning-impossible spin-spinning-impossible
grade published-locksvc reference_locksvc.js "$C/locksvc"
judge published-locksvc none
grade locksvc reference_locksvc.js "$TMP/locksvc"
judge locksvc none
# etcd: the reference models the task's 3-node cluster: the published
# corpora, and our captures of it (tests/canonical/etcd: the reference
# scenarios and tests/raft/scenarios; upstream's example.ndjson, 5 nodes with
# membership changes, is outside its contract: docs/canonical.md).
grade published-etcd reference_etcd.js "$C/etcd" --actions "$targets"
judge published-etcd none
"$CAPTURE" fold etcd "$ROOT"/tests/canonical/etcd/*.ndjson -o "$TMP/etcd" >/dev/null 2>&1 ||
	not_ok "fold etcd" "exit $?"
grade etcd reference_etcd.js "$TMP/etcd" --actions "$targets"
judge etcd etcd-documented
# etcd-task's impossibility windows, in etcd's shape through the view.
"$CAPTURE" fold etcd-task "$ROOT"/tests/canonical/etcd/0[1-5]-*.ndjson -o "$TMP/etcd-task" \
	>/dev/null 2>&1 || not_ok "fold etcd-task" "exit $?"
SYSTEM=etcd-task grade etcd-task-impossible reference_etcd.js "$TMP/etcd-task/etcd-task/impossible" \
	--view etcd-task --actions "$targets"
judge etcd-task-impossible etcd-task-impossible

# The adapter runs the validator it was pinned to, and fails a wrong spec.
sed 's/lockHeld: false, lockHolder: null };$/lockHeld: true, lockHolder: null };/' \
	"$G/reference_spin.js" >"$TMP/wrong_spin.js"
"$CAPTURE" grade --json --exec "node $here/sysmobench-tv.js $G/tv.mjs $TMP/wrong_spin.js" \
	"$C/spin" >"$TMP/wrong.json" 2>/dev/null
check "a spec whose release keeps the lock held fails the published releases" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["all"]["failed"] == 11 else 1)' "$TMP/wrong.json"
printf '// not tv.mjs\n' >"$TMP/tv.mjs"
expect_exit 6 "another validator than the pinned tv.mjs is refused" 'not tv.mjs 4d5628840bcd' \
	"$CAPTURE" grade --exec "node $here/sysmobench-tv.js $TMP/tv.mjs $G/reference_spin.js" "$C/spin"
