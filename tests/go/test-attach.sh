#!/bin/bash
# The engine's two attach paths (docs/engine.md, "Attaching"): every site as
# one uprobe_multi link, or a perf-event uprobe per site.  Each forced by
# CAPTURE_UPROBE gives the same events and windows, byte for byte, and the
# manifest records which ran; the multi path detaches in one step, the
# perf path says when its detaching takes long; unforced, the path is
# what trying the kernel found, cached per kernel and read back.
# needs: root btf go goproxy
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/go/bank.sh"
export PATH=$PATH:/usr/local/go/bin
export CAPTURE_CACHE=$TMP/cache
HARNESS=$ROOT/build/etcd/harness
RAFT=$ROOT/scenarios/etcd/raft.probes
P=$ROOT/scenarios/etcd/02-proposal

attach_of() { jq -r .environment.attach "$1/MANIFEST.json"; }
# The manifest less its "attach": what must not differ between the paths.
rest_of() { jq -S 'del(.environment.attach)' "$1/MANIFEST.json"; }

for how in multi perf; do
	if CAPTURE_UPROBE=$how $CAPTURE etcd --scenario all -o "$TMP/etcd-$how" \
		>/dev/null 2>"$TMP/etcd-$how.err"; then
		ok "capture etcd --scenario all, CAPTURE_UPROBE=$how"
	else
		not_ok "capture etcd --scenario all, CAPTURE_UPROBE=$how" "$(tail -n 2 "$TMP/etcd-$how.err")"
	fi
done
[ "$(attach_of "$TMP/etcd-multi")/$(attach_of "$TMP/etcd-perf")" = uprobe_multi/perf_event ] &&
	ok "the manifest records the attach path (uprobe_multi, perf_event)" ||
	not_ok "the manifest records the attach path" \
		"$(attach_of "$TMP/etcd-multi")/$(attach_of "$TMP/etcd-perf")"
if diff -r -x MANIFEST.json "$TMP/etcd-multi" "$TMP/etcd-perf" >"$TMP/diff" 2>&1; then
	ok "capture etcd: raw events and windows byte-identical on both paths"
else
	not_ok "capture etcd: the same bytes on both paths" "$(head -n 3 "$TMP/diff")"
fi
if diff <(rest_of "$TMP/etcd-multi") <(rest_of "$TMP/etcd-perf") >"$TMP/diff"; then
	ok "capture etcd: the manifests differ only in attach"
else
	not_ok "capture etcd: the manifests differ only in attach" "$(head -n 3 "$TMP/diff")"
fi
# One link, one detach; the perf path's detaches, one per site (~0.1 s each), are said.
grep -q 'detaching' "$TMP/etcd-multi.err" &&
	not_ok "the multi path detaches in one step" "$(grep -m 1 detaching "$TMP/etcd-multi.err")" ||
	ok "the multi path detaches in one step (no progress line for it)"
grep -Eq 'detaching [0-9]+ more perf-event uprobes, [0-9.]+ s each' "$TMP/etcd-perf.err" &&
	ok "the perf path's detaching, over a second, has a progress line" ||
	not_ok "the perf path's detaching has a progress line" "$(tail -n 3 "$TMP/etcd-perf.err")"

# --scenario all runs every scenario through one harness process, the
# probes attached once; each scenario's run is the bytes of its own capture.
grep -q '^capture: etcd: 5 scenarios through one probed harness$' "$TMP/etcd-multi.err" &&
	ok "capture etcd --scenario all: one probed harness for the 5 scenarios" ||
	not_ok "capture etcd --scenario all: one probed harness" "$(head -n 3 "$TMP/etcd-multi.err")"
for s in "$ROOT"/scenarios/etcd/0[1-9]-*; do
	n=$(basename "$s")
	if $CAPTURE etcd --scenario "$n" -o "$TMP/one-$n" >/dev/null 2>"$TMP/one.err"; then
		cmp -s "$TMP/one-$n/raw/$n.ndjson" "$TMP/etcd-multi/raw/$n.ndjson" &&
			cmp -s "$TMP/one-$n/etcd/$n.ndjson" "$TMP/etcd-multi/etcd/$n.ndjson" &&
			ok "$n alone: the raw events and windows of --scenario all" ||
			not_ok "$n alone: the bytes of --scenario all" \
				"$(diff "$TMP/one-$n/raw/$n.ndjson" "$TMP/etcd-multi/raw/$n.ndjson" | head -n 3)"
	else
		not_ok "capture etcd --scenario $n" "$(tail -n 2 "$TMP/one.err")"
	fi
done

# capture go with the raft spec, folded: the same events and windows.
for how in multi perf; do
	check "capture go --fold etcd, CAPTURE_UPROBE=$how" env CAPTURE_UPROBE=$how \
		$CAPTURE go --probes "$RAFT" --fold etcd -o "$TMP/go-$how" -- "$HARNESS" "$P"
done
if diff -r -x MANIFEST.json "$TMP/go-multi" "$TMP/go-perf" >"$TMP/diff" 2>&1; then
	ok "capture go: records, events and windows byte-identical on both paths"
else
	not_ok "capture go: the same bytes on both paths" "$(head -n 3 "$TMP/diff")"
fi
same_bytes "capture go's windows = capture etcd's" "$TMP/go-multi/etcd/harness.ndjson" \
	"$TMP/etcd-perf/etcd/02-proposal.ndjson"
# A corpus of one path verifies on the other: only the environment differs.
CAPTURE_UPROBE=multi $CAPTURE verify "$TMP/go-perf" >"$TMP/verify" 2>&1
if [ $? = 0 ] && grep -q '^  environment differs: attach: "perf_event" -> "uprobe_multi"' "$TMP/verify"; then
	ok "a perf_event corpus verifies on uprobe_multi, the difference reported"
else
	not_ok "a perf_event corpus verifies on uprobe_multi" "$(tail -n 3 "$TMP/verify")"
fi

# Unforced: tried once, the verdict cached, then read back; a cached perf
# verdict is obeyed (the cache is what decides, not the kernel's version).
rm -rf "$CAPTURE_CACHE"
$CAPTURE go --probes "$RAFT" -o "$TMP/t1" -- "$HARNESS" "$P" >/dev/null 2>"$TMP/t1.err"
grep -q 'uprobes attached as uprobe_multi: the kernel attaches uprobe_multi links (tried; cached in' \
	"$TMP/t1.err" && [ "$(attach_of "$TMP/t1")" = uprobe_multi ] &&
	ok "unforced on this kernel: uprobe_multi, found by trying" ||
	not_ok "unforced: uprobe_multi, found by trying" "$(grep uprobes "$TMP/t1.err")"
verdict=$(ls "$CAPTURE_CACHE"/uprobe/* 2>/dev/null | head -n 1)
[ -n "$verdict" ] && [ "$(head -n 1 "$verdict")" = multi ] &&
	ok "the verdict is cached under CAPTURE_CACHE/uprobe/" ||
	not_ok "the verdict is cached" "$(ls -R "$CAPTURE_CACHE")"
$CAPTURE go --probes "$RAFT" -o "$TMP/t2" -- "$HARNESS" "$P" >/dev/null 2>"$TMP/t2.err"
grep -q 'uprobe_multi: the kernel attaches uprobe_multi links (verdict cached in' "$TMP/t2.err" &&
	ok "the second run reads the cached verdict" ||
	not_ok "the second run reads the cached verdict" "$(grep uprobes "$TMP/t2.err")"
printf 'perf\na kernel without uprobe_multi\n' >"$verdict"
$CAPTURE go --probes "$RAFT" -o "$TMP/t3" -- "$HARNESS" "$P" >/dev/null 2>"$TMP/t3.err"
[ "$(attach_of "$TMP/t3")" = perf_event ] && cmp -s "$TMP/t1/events/harness.ndjson" "$TMP/t3/events/harness.ndjson" &&
	ok "a cached perf verdict: perf_event, the same events" ||
	not_ok "a cached perf verdict is obeyed" "$(grep uprobes "$TMP/t3.err")"

expect_exit 2 "CAPTURE_UPROBE of neither: usage" "CAPTURE_UPROBE must be perf or multi, not 'both'" \
	env CAPTURE_UPROBE=both $CAPTURE go --probes "$RAFT" -o "$TMP/x" -- "$HARNESS" "$P"
nothing_left "no corpus after a bad CAPTURE_UPROBE" "$TMP/x"
