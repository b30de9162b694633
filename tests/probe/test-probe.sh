#!/bin/bash
# capture probe on a C program (docs/probes.md, "System V"): the toy ledger
# (tests/probe/ledger.c: threads taking turns under a mutex) built -O0 and
# -O2 with gcc and -O2 with clang, traced by tests/probe/ledger.probes
# alone and checked against its own log (check-ledger.py), the same events
# at every level; the manifest's build id and language; every refusal
# (a value optimized out at the probe site, a field DWARF lacks, a result
# at an entry, a return by a tail call, an unsupported language, no DWARF,
# no ELF) with exit 3, its SPEC:LINE or binary, and nothing written.
# needs: root btf python3 jq
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/probe
W=3 OPS=30

build() {   # build NAME CC FLAGS...: the ledger
	local name=$1 cc=$2; shift 2
	$cc "$@" -pthread -o "$TMP/$name" "$D/ledger.c" 2>"$TMP/cc.err" ||
		not_ok "build the ledger $cc $*" "$(tail -n 2 "$TMP/cc.err")"
}
build ledger0 gcc -O0 -g
build ledger2 gcc -O2 -g
build ledgerc clang -O2 -g
build nodwarf gcc -O2

for bin in ledger0 ledger2 ledgerc; do
	if $CAPTURE probe --probes "$D/ledger.probes" -o "$TMP/c-$bin" -- "$TMP/$bin" $W $OPS \
		>"$TMP/$bin.out" 2>"$TMP/$bin.err"; then
		ok "capture probe of the ledger built $bin"
	else
		not_ok "capture probe of the ledger built $bin" "$(tail -n 2 "$TMP/$bin.err")"
	fi
	# stdout: the ledger's log, then the corpus directory capture prints.
	head -n -1 "$TMP/$bin.out" >"$TMP/$bin.log"
	if out=$(python3 "$D/check-ledger.py" "$TMP/c-$bin/events/$bin.ndjson" "$TMP/$bin.log" \
		$W $OPS 2>&1); then
		ok "$bin: arguments, fields through pointers, unions, arrays, enums, bit-fields, results as logged ($out)"
	else
		not_ok "$bin: the events against the log" "$out"
	fi
done
for bin in ledger2 ledgerc; do
	if cmp -s "$TMP/c-ledger0/events/ledger0.ndjson" "$TMP/c-$bin/events/$bin.ndjson"; then
		ok "$bin: the same events as -O0"
	else
		not_ok "$bin: the same events as -O0" \
			"$(diff "$TMP/c-ledger0/events/ledger0.ndjson" "$TMP/c-$bin/events/$bin.ndjson" | head -n 4)"
	fi
done
# The check can fail: one amount changed in the log.
sed '2s/amount=\([0-9]*\)/amount=9\1/' "$TMP/ledger2.log" >"$TMP/bad.log"
python3 "$D/check-ledger.py" "$TMP/c-ledger2/events/ledger2.ndjson" "$TMP/bad.log" $W $OPS \
	>/dev/null 2>&1 && not_ok "a log that differs fails the check" "check-ledger.py passed it" ||
	ok "a log that differs fails the check"

M=$TMP/c-ledger2/MANIFEST.json
want_id=$(readelf -n "$TMP/ledger2" | sed -n 's/.*Build ID: //p')
if [ "$(jq -r .environment.build_id "$M")" = "$want_id" ] &&
   [ "$(jq -r .environment.language "$M")" = C11 ] &&
   [ "$(jq -r .environment.language "$TMP/c-ledgerc/MANIFEST.json")" = C99 ] &&
   [ "$(jq -r '.events.Apply' "$M")" = $((W * OPS)) ]; then
	ok "manifest: the GNU build id, the language, $((W * OPS)) operations"
else
	not_ok "manifest: the GNU build id and the language" "$(jq -c .environment "$M")"
fi
# Threads are numbered in their process (1, 2, 3), never their ids.
threads=$(jq -s -c '[.[].goid] | unique' "$TMP/c-ledger2/raw/ledger2.ndjson")
if [ "$threads" = "[0,1,2,3,4]" ]; then   # the workers, then main
	ok "raw/: threads numbered 1 to $((W + 1)), no thread id"
else
	not_ok "raw/: threads numbered 1 to $((W + 1)), no thread id" "$threads"
fi

spec() {   # spec NAME LINE...: a spec file of these lines
	local name=$1; shift
	printf '%s\n' "$@" >"$TMP/$name.probes"
}
refused() {   # refused NAME PATTERN BINARY: exit 3, the message, nothing written
	expect_exit 3 "refused: $1" "$2" \
		$CAPTURE probe --probes "$TMP/$1.probes" -o "$TMP/out-$1" -- "$3"
	nothing_left "nothing written: $1" "$TMP/out-$1"
}
spec verbose 'func ledger_totals' 'entry T' '	v i32 verbose'
refused verbose 'verbose.probes:3: .*ledgerc: verbose: argument verbose of ledger_totals is optimized out at the probe site' "$TMP/ledgerc"
spec nofield 'func ledger_apply' 'entry T' '	x i32 op.nosuch'
refused nofield 'nofield.probes:3: .*ledger2: op.nosuch: op has no field nosuch' "$TMP/ledger2"
spec early 'func ledger_peek' 'entry T' '	x i64 ~r0.balance'
refused early 'early.probes:3: .*result ~r0 is only known at a return' "$TMP/ledger2"
spec size 'func ledger_apply' 'entry T' '	x i64 op.id'
refused size 'size.probes:3: op.id is int \(4 bytes, as i32\), not i64' "$TMP/ledger2"
gcc -O2 -g "$D/tail.c" -o "$TMP/tail"
spec tail 'func route' 'return R' '	r i32 ~r0'
refused tail 'tail.probes:2: .*tail: route ends in a tail call \(a jump at 0x[0-9a-f]+\)' "$TMP/tail"
gcc -g "$D/plain.s" -o "$TMP/plain"
for name in lang nodwarf noelf; do cp "$TMP/nofield.probes" "$TMP/$name.probes"; done
refused lang 'plain: its DWARF.s language is an assembler.s \(DW_AT_language 0x8001\)' "$TMP/plain"
refused nodwarf 'nodwarf: no DWARF debug information \(built without -g, or stripped\?\)' "$TMP/nodwarf"
cp "$D/ledger.c" "$TMP/source" && chmod +x "$TMP/source"
refused noelf 'source: not an ELF file' "$TMP/source"
