#!/bin/bash
# capture go's package variables (docs/probe-spec.md, "Variables"): the Go gauge
# (tests/go/gauge: goroutines taking turns on a state that is one packed
# package variable) built as an executable and position-independent
# (-buildmode=pie: the load bias from the probe's own address), traced by
# tests/go/gauge.probes (the word split by computed fields, a sync/atomic
# counter, a pointer to a struct, an array, another package's variable by
# its import path) and checked against its own log (check-gauge.py), the
# same events from both builds; a misspelt variable refused with exit 3,
# its SPEC:LINE, the nearest names and nothing written; --fold of a
# system that does not read such events refused at their first line; a
# return event of a function without a RET refused, its entry event not.
# needs: root btf go python3
source "$(dirname "$0")/../lib.sh"
GO=$(go_tool)
D=$TESTS_DIR/go

for mode in exe pie; do
	GOTOOLCHAIN=local GOFLAGS=-mod=readonly $GO -C "$D/gauge" build -trimpath \
		-buildvcs=false -buildmode=$mode -o "$TMP/$mode" . 2>"$TMP/go.err" ||
		not_ok "build the gauge -buildmode=$mode" "$(tail -n 2 "$TMP/go.err")"
	if $CAPTURE go --probes "$D/gauge.probes" -o "$TMP/c-$mode" -- "$TMP/$mode" \
		-workers 3 -ops 20 >"$TMP/$mode.out" 2>"$TMP/$mode.err"; then
		ok "capture go of the gauge built -buildmode=$mode"
	else
		not_ok "capture go of the gauge built -buildmode=$mode" "$(tail -n 2 "$TMP/$mode.err")"
	fi
	if out=$(python3 "$TESTS_DIR/probe/check-gauge.py" "$TMP/c-$mode/events/$mode.ndjson" \
		"$TMP/$mode.out" 2>&1); then
		ok "$mode: a packed package variable split, an atomic, a pointer's struct, an array, another package's variable as logged ($out)"
	else
		not_ok "$mode: the events against the log" "$out"
	fi
done
same_bytes "pie: the same events as exe" "$TMP/c-exe/events/exe.ndjson" \
	"$TMP/c-pie/events/pie.ndjson"
if readelf -h "$TMP/pie" | grep -q 'Type: *DYN' && readelf -h "$TMP/exe" | grep -q 'Type: *EXEC'; then
	ok "the builds: pie position-independent, exe not"
else
	not_ok "the builds: pie position-independent, exe not" "$(readelf -h "$TMP/pie" | grep Type)"
fi
sed '6s/ticks=\([0-9]*\)/ticks=9\1/' "$TMP/pie.out" >"$TMP/bad.log"
python3 "$TESTS_DIR/probe/check-gauge.py" "$TMP/c-pie/events/pie.ndjson" "$TMP/bad.log" \
	>/dev/null 2>&1 && not_ok "a log with another package's variable changed fails the check" "it passed" ||
	ok "a log with another package's variable changed fails the check"

printf '%s\n' 'func main.apply' 'entry A' '	x u64 main.stat' >"$TMP/misspelt.probes"
expect_exit 3 "refused: misspelt" \
	'misspelt.probes:3: .*pie: main.stat: main.apply has no argument or result main, and the binary no variable main.stat \(did you mean main.state' \
	$CAPTURE go --probes "$TMP/misspelt.probes" -o "$TMP/out-misspelt" -- "$TMP/pie"
nothing_left "nothing written: misspelt" "$TMP/out-misspelt"

# --fold of a system whose input the gauge's events are not: exit 3 at
# their first line (spin and rwlock read console logs, etcd with_tla).
for sys in spin rwlock etcd; do
	expect_exit 3 "--fold $sys of the gauge's events: refused at their first line" \
		"f-$sys.failed/raw/pie.events.ndjson:1: " \
		$CAPTURE go --probes "$D/gauge.probes" --fold $sys -o "$TMP/f-$sys" -- "$TMP/pie" \
		-workers 1 -ops 2
	nothing_left "no corpus after --fold $sys" "$TMP/f-$sys"
done

# A return event of a Go function that has no RET (the gauge's stop only
# panics): refused, no uretprobe in Go; an entry event of it is not.
printf '%s\n' 'func main.stop' 'return S' '	n i64 len(why)' >"$TMP/noret.probes"
expect_exit 3 "refused: a return of a function without a RET" \
	'noret.probes:2: .*exe: main.stop has no RET instruction \(it never returns\): a return event would never come; probe the return of its caller' \
	$CAPTURE go --probes "$TMP/noret.probes" -o "$TMP/out-noret" -- "$TMP/exe"
nothing_left "nothing written: noret" "$TMP/out-noret"
printf '%s\n' 'func main.stop' 'entry S' '	n i64 len(why)' >"$TMP/stop.probes"
check "an entry event of a function without a RET" \
	$CAPTURE go --probes "$TMP/stop.probes" -o "$TMP/stop" -- "$TMP/exe" -workers 1 -ops 1
