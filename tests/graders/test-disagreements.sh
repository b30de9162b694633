#!/bin/bash
# docs/disagreements.md cannot go stale: the corpora it cites are
# regenerated from the tree by the commands it names, graded by
# SysMoBench's reference specs (sysmobench-tv.js), and the windows they
# reject, each under its cause (sysmobench-judge.py list), must be exactly
# the page's rows (cause, window, action): a window more or less, moved or
# under another cause, fails.  The etcd corpora are checked as
# etcd-entries too (entries-check.sh), and as etcd-task by TLC against
# etcdraft.tla, whose rejections by cause are the page's too
# (tests/tlc/tlc-judge.py).
# needs: root go goproxy reference node python3 tlc
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
here=$(cd "$(dirname "$0")" && pwd)
G=$REF/sysmobench-graders
spin=$ROOT/tests/spin
targets=ElectionTimeout,HandleVoteRequest,ClientProposal,HandleAppendEntries,HandleHeartbeat
page=$ROOT/docs/disagreements.md
source "$here/entries-check.sh"
source "$ROOT/tests/tlc/etcd-tlc.sh"

# make NAME CAPTURE-ARGS...: the corpus $TMP/NAME, as the page's table says.
make_corpus() {
	local name=$1; shift
	noted "$CAPTURE" "$@" -o "$TMP/$name" >/dev/null || not_ok "corpus $name" "$(why)"
}
# grade NAME SPEC [ADAPTER OPTIONS...]: $TMP/NAME.json, the scorecard.
grade() {
	local name=$1 spec=$2 rc=0; shift 2
	"$CAPTURE" grade --json ${SYSTEM:+--system "$SYSTEM"} --exec \
		"node $here/sysmobench-tv.js $G/tv.mjs $G/$spec $*" "$TMP/$name" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 4 ] || not_ok "$name: graded" "exit $rc: $(tail -n 2 "$TMP/$name.err")"
}

cd "$ROOT"
make_corpus published etcd --scenario all --via trace
make_corpus fixtures fold etcd tests/canonical/etcd/*.ndjson
make_corpus explored etcd --explore --seed 1 --budget 200 --via trace
make_corpus spin fold spin "$spin"/domain/*.ftrace "$spin/contention.ftrace" "$spin/block-2cpu.ftrace"
make_corpus task fold spin-task "$spin"/domain/*.ftrace "$spin/contention.ftrace" "$spin/block-2cpu.ftrace"
for c in published fixtures explored; do grade $c reference_etcd.js --actions "$targets"; done
check_entries published "$ROOT/build/test-logs/disagreements"
check_entries explored "$ROOT/build/test-logs/disagreements"
grade spin reference_spin.js
grade task reference_spin.js --view spin-task

{
	python3 "$here/sysmobench-judge.py" list etcd "$TMP" "$TMP"/published.json "$TMP"/fixtures.json "$TMP"/explored.json
	python3 "$here/sysmobench-judge.py" list spin "$TMP" "$TMP/spin.json"
	python3 "$here/sysmobench-judge.py" list spin-task "$TMP" "$TMP/task.json"
} | LC_ALL=C sort >"$TMP/graders"
sed -n 's/^| \([a-z-]*\) | `\([^`]*\)` | \([A-Za-z]*\) |.*/\1 \2 \3/p' "$page" | LC_ALL=C sort >"$TMP/page"

if [ ! -s "$TMP/graders" ]; then
	not_ok "the graders reject windows" "none rejected: $(tail -n 2 "$TMP"/*.err)"
elif grep -q '^other ' "$TMP/graders" && ! grep -q '^other ' "$TMP/page"; then
	not_ok "every rejected window has a known cause" "$(grep '^other ' "$TMP/graders" | head -n 3)"
else
	ok "the graders reject $(wc -l <"$TMP/graders") windows, each of a cause the page has"
fi
for c in published explored; do
	etcd_task_runs $c
	etcd_tlc $c "$TMP/$c.task"/*/
done
python3 "$ROOT/tests/tlc/tlc-judge.py" graded published "$TMP/published.tlc.json" >"$TMP/tlc"
python3 "$ROOT/tests/tlc/tlc-judge.py" graded explored "$TMP/explored.tlc.json" >>"$TMP/tlc"
python3 "$ROOT/tests/tlc/tlc-judge.py" page "$page" published explored | grep '^etcdraft\.tla ' |
	LC_ALL=C sort >"$TMP/tlc.page"
if LC_ALL=C sort "$TMP/tlc" | diff "$TMP/tlc.page" - >"$TMP/diff"; then
	ok "etcdraft.tla (TLC) rejects in published and explored what the page says, by cause"
else
	not_ok "etcdraft.tla (TLC) rejects in published and explored what the page says, by cause" \
		"page (<) vs TLC (>): $(grep '^[<>]' "$TMP/diff" | head -n 6)"
fi
if diff "$TMP/page" "$TMP/graders" >"$TMP/diff"; then
	ok "docs/disagreements.md lists exactly the windows the graders reject"
else
	not_ok "docs/disagreements.md lists exactly the windows the graders reject" \
		"page (<) vs graders (>): $(grep '^[<>]' "$TMP/diff" | head -n 6)"
fi
