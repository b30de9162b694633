#!/bin/bash
# capture probe on a C program (docs/probes.md, "System V"): the toy ledger
# (tests/probe/ledger.c: threads taking turns under a mutex) built -O0 and
# -O2 with gcc and -O2 with clang, traced by tests/probe/ledger.probes
# alone and checked against its own log (check-ledger.py), the same events
# at every level; the manifest's build id and language; returns by tail
# calls (tests/probe/tail.c: a jump to another function, one through the
# PLT) at -O0, -O2 and clang -O2, checked against its log (check-tail.py);
# recursion under uretprobes (tests/probe/deep.c) paired, and past the
# kernel's 64 nested returns a failure;
# every refusal (a value optimized out at the probe site, a field DWARF
# lacks, a result at an entry, a frame's slot read where a uretprobe sees
# the return, an unsupported language, no DWARF, no ELF)
# with exit 3, its SPEC:LINE or binary, and nothing written.
# needs: root btf python3 jq
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/probe-lib.sh"
D=$TESTS_DIR/probe
W=3 OPS=30

compile ledger0 "$D/ledger.c" gcc -O0 -g
compile ledger2 "$D/ledger.c" gcc -O2 -g
compile ledgerc "$D/ledger.c" clang -O2 -g
compile nodwarf "$D/ledger.c" gcc -O2

captured "$D/ledger.probes" "$D/check-ledger.py" \
	"arguments, fields through pointers, unions, arrays, enums, bit-fields, results" \
	ledger0 ledger2 ledgerc
can_fail "$D/check-ledger.py" ledger2 '2s/amount=\([0-9]*\)/amount=9\1/' amount

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

spec verbose 'func ledger_totals' 'entry T' '	v i32 verbose'
refused verbose 'verbose.probes:3: .*ledgerc: verbose: argument verbose of ledger_totals is optimized out at the probe site' "$TMP/ledgerc"
spec nofield 'func ledger_apply' 'entry T' '	x i32 op.nosuch'
refused nofield 'nofield.probes:3: .*ledger2: op.nosuch: op has no field nosuch' "$TMP/ledger2"
spec early 'func ledger_peek' 'entry T' '	x i64 ~r0.balance'
refused early 'early.probes:3: .*result ~r0 is only known at a return' "$TMP/ledger2"
spec size 'func ledger_apply' 'entry T' '	x i64 op.id'
refused size 'size.probes:3: op.id is int \(4 bytes, as i32\), not i64' "$TMP/ledger2"
# Returns by tail calls (tests/probe/tail.c): a RET at -O0, the kernel's
# uretprobe at -O2 (a jump to leaf, one through the PLT with no RET).
compile tail0 "$D/tail.c" gcc -O0 -g
compile tail2 "$D/tail.c" gcc -O2 -g
compile tailc "$D/tail.c" clang -O2 -g
if objdump -d "$TMP/tail2" | grep -A3 '<release>:' | grep -q 'jmp.*pthread_mutex_unlock@plt' &&
   ! objdump -d "$TMP/tail2" | awk '/<release>:/,/^$/' | grep -qw ret; then
	ok "tail2: release ends in a jump through the PLT and has no RET"
else
	not_ok "tail2: release ends in a jump through the PLT and has no RET" "gcc compiled it otherwise"
fi
captured "$D/tail.probes" "$D/check-tail.py" "every return, by a RET or a tail call," \
	tail0 tail2 tailc
can_fail "$D/check-tail.py" tail2 '5s/r=\([0-9]*\)/r=9\1/' result
CAPTURE_UPROBE=perf $CAPTURE probe --probes "$D/tail.probes" -o "$TMP/tail-perf" -- \
	"$TMP/tail2" >/dev/null 2>"$TMP/tail-perf.err" ||
	not_ok "tail2 on the perf_event path" "$(tail -n 2 "$TMP/tail-perf.err")"
same_bytes "tail2: uretprobes attached one by one (perf_event), the same events" \
	"$TMP/c-tail2/events/tail2.ndjson" "$TMP/tail-perf/events/tail2.ndjson"
# Recursion: each return paired with its own entry, 64 deep at most
# (the kernel's uretprobes), deeper a failure, not a wrong pairing.
compile deep "$D/deep.c" gcc -O2 -g
if $CAPTURE probe --probes "$D/deep.probes" -o "$TMP/deep40" -- "$TMP/deep" 40 \
	>/dev/null 2>"$TMP/deep.err" &&
   [ "$(jq -s -c '[.[] | select(.n == .r)] | length' "$TMP/deep40/events/deep.ndjson")" = 41 ] &&
   [ "$(jq -s -c '[.[].n] == [range(41)]' "$TMP/deep40/events/deep.ndjson")" = true ]; then
	ok "recursion 40 deep: 41 returns, each with its own argument"
else
	not_ok "recursion 40 deep: 41 returns, each with its own argument" "$(tail -n 2 "$TMP/deep.err")"
fi
expect_exit 6 "recursion 100 deep: past 64 returns by uretprobe, the capture fails" \
	'lost events: .* 37 frames not saved' \
	$CAPTURE probe --probes "$D/deep.probes" -o "$TMP/deep100" -- "$TMP/deep" 100
spec deadslot 'func keep' 'return K' '	x i32 x'
refused deadslot "deadslot.probes:3: .*tailc: x: argument x of keep is in a slot of its frame, which is gone where the kernel's uretprobe sees the return \(a jump may leave keep: a tail call\): read it at the entry" "$TMP/tailc"
gcc -g "$D/plain.s" -o "$TMP/plain"
for name in lang nodwarf noelf; do cp "$TMP/nofield.probes" "$TMP/$name.probes"; done
refused lang 'plain: its DWARF.s language is an assembler.s \(DW_AT_language 0x8001\)' "$TMP/plain"
refused nodwarf 'nodwarf: no DWARF debug information \(built without -g, or stripped\?\)' "$TMP/nodwarf"
cp "$D/ledger.c" "$TMP/source" && chmod +x "$TMP/source"
refused noelf 'source: not an ELF file' "$TMP/source"

# Empty lists (bpf/describe.c): a gcc -O0 binary inlines nothing, and a
# function with a local but no parameters offers no near name; neither
# sorts a NULL list (the sanitizer build aborts on qsort(NULL, 0, ...)).
printf '%s\n' '__attribute__((noipa)) int none(void) { volatile int k = 1; return k; }' \
	'int main(void) { return none() - 1; }' >"$TMP/none.c"
gcc -O0 -g -o "$TMP/none" "$TMP/none.c"
if $CAPTURE go --describe "$TMP/none" "n*" >"$TMP/none.list" 2>"$TMP/none.err" &&
   grep -qx none "$TMP/none.list"; then
	ok "--describe of a gcc -O0 binary: nothing inlined, its functions listed"
else
	not_ok "--describe of a gcc -O0 binary" "$(tail -n 2 "$TMP/none.err")"
fi
spec noargs 'func none' 'entry T' '	x i32 nosuch'
refused noargs 'noargs.probes:3: .*none: nosuch: the function has no argument or result nosuch$' "$TMP/none"
