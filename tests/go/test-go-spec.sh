#!/bin/bash
# The probe spec language beyond reads (docs/probe-spec.md): the toy bank traced by
# tests/go/features.probes and checked against its log; each new refusal
# with its exit code, SPEC:LINE and nothing written; the runtime failures
# (a "once" event missing from a call, a computed field over a nil value,
# a division by zero, a negative shift count, a value never kept); state
# across events (tests/go/state.probes); comparisons, min, max, division,
# bits and by over a computed field (tests/go/calc.probes);
# strings as keys and kept values (tests/go/nodes-state.probes).
# needs: root btf go python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/go/bank.sh"
build -o "$TMP/bank" .
BANK="$TMP/bank -procs 2 -workers 3 -transfers 40"

# traced NAME EDIT WHAT [PROGRAM...]: the program (the bank) traced by
# $D/NAME.probes, its events checked against its log by check-NAME.py, and
# the check seen to fail on the log changed by sed EDIT.
traced() {
	local name=$1 edit=$2 what=$3 out; shift 3
	local run=${*:-$BANK}
	local ev=$TMP/$name/events/$(basename "${run%% *}").ndjson
	if $CAPTURE go --probes "$D/$name.probes" -o "$TMP/$name" -- $run \
		>"$TMP/$name.out" 2>"$TMP/$name.err"; then
		ok "capture go of ${run%% *} with $name.probes"
	else
		not_ok "capture go of ${run%% *} with $name.probes" "$(tail -n 2 "$TMP/$name.err")"
	fi
	if out=$(python3 "$D/check-$name.py" "$ev" "$TMP/$name.out" 2>&1); then
		ok "$what: as logged ($out)"
	else
		not_ok "$what: as logged" "$out"
	fi
	sed "$edit" "$TMP/$name.out" >"$TMP/bad-$name.log"
	python3 "$D/check-$name.py" "$ev" "$TMP/bad-$name.log" \
		>/dev/null 2>&1 &&
		not_ok "a log that differs fails check-$name.py" "it passed" ||
		ok "a log that differs fails check-$name.py"
}
traced features '7s/amount [0-9]*/amount 999/' \
	"header, group, nesting, hidden, computed, as string, while, once, per"
line=$(grep -m1 '"kind":"InWorker"' "$TMP/features/events/bank.ndjson")
if [[ "$line" =~ ^\{\"kind\":\"InWorker\",\"proc\":[0-9],\"t\":\{\"id\":[0-9]+,\"amount\":[0-9]+,\"net\":[0-9]+,\"bank\":\"[0-9]\"\},\"charged\":[01]\}$ ]]; then
	ok "the event's shape: the header's key, proc, an object, no hidden field"
else
	not_ok "the event's shape" "$line"
fi
# A payer's amount changed in the log changes what it kept.
traced state '3s/amount [0-9]*/amount 999/' \
	"keep and kept: per process and account, at another site, or 0 never kept"
traced calc '5s/from [0-9]* to/from 7 to/' \
	"comparisons, if, min, max (signed), by a computed field"
# Strings as keys and kept values: tests/go/nodes, its nodes named by strings.
GOTOOLCHAIN=local GOFLAGS=-mod=readonly $GO -C "$D/nodes" build -trimpath \
	-buildvcs=false -o "$TMP/nodes" . 2>"$TMP/go.err" ||
	not_ok "build the nodes" "$(tail -n 2 "$TMP/go.err")"
traced nodes-state '4s/from node-b/from node-x/' \
	"keep and kept by string keys, a string kept" "$TMP/nodes"

A='func main.(*Bank).apply'
spec keepout 'group g X' '	id i64 X.ID' 'keep k proc = id'
refused keepout 'keepout.probes:3: keep outside an entry or return'
spec keepform "$A" 'entry T' '	id i64 t.ID' '	keep k proc id'
refused keepform "keepform.probes:4: expected 'keep NAME KEY... = FIELD', NAME an identifier"
spec keepvalue "$A" 'entry T' '	id i64 t.ID' '	keep k proc = amount'
refused keepvalue "keepvalue.probes:4: keep k: 'amount' is not a one-value field above"
spec keepkey "$A" 'entry T' '	id i64 t.ID' '	keep k from = id'
refused keepkey "keepkey.probes:4: key 'from': not a one-value field above, nor proc"
spec keepnokey "$A" 'entry T' '	id i64 t.ID' '	keep k = id'
refused keepnokey "keepnokey.probes:4: expected 'keep NAME KEY... = FIELD'"
spec keepslice "$A" 'entry T' '	id i64 t.ID' '	bal i64 b.accounts[:8].Balance' '	keep k bal = id'
refused keepslice "keepslice.probes:5: key 'bal': not a one-value field above, nor proc"
spec keepproc 'header name' "$A" 'entry T' '	proc i64 t.ID' '	keep k proc = proc'
refused keepproc "keepproc.probes:5: key proc: both a field above and the process's index"
spec keeplen "$A" 'entry T' '	id i64 t.ID' '	keep k proc = id' '	keep k proc id = id'
refused keeplen "keeplen.probes:5: k: a key of 2 values, keep k \(line 4\) has 1"
spec keeptype "$A" 'entry T' '	id i64 t.ID' '	to i32 t.To' '	keep k proc = id' '	keep k proc = to'
refused keeptype "keeptype.probes:6: to: not the type of id, the value keep k \(line 5\) keeps"
spec keptnone "$A" 'entry T' '	id i64 t.ID' '	v i64 kept votes proc'
refused keptnone "keptnone.probes:4: kept votes: no 'keep votes' in the spec"
spec keptlen "$A" 'entry T' '	id i64 t.ID' '	v i64 kept k proc id' '	keep k proc = id'
refused keptlen "keptlen.probes:4: k: a key of 2 values, keep k \(line 5\) has 1"
spec kepttype "$A" 'entry T' '	id i64 t.ID' '	v u64 kept k proc' '	keep k proc = id'
refused kepttype "kepttype.probes:4: v: not the type of id, the value keep k \(line 5\) keeps"
spec keptstr "$A" 'entry T' '	o str b.accounts[0].Owner' '	keep k proc = o' '	v u64 kept k proc'
refused keptstr "keptstr.probes:5: v: not the type of o, the value keep k \\(line 4\\) keeps"
spec keptstrdef "$A" 'entry T' '	o str b.accounts[0].Owner' '	keep k proc = o' '	v str kept k proc or a"b'
refused keptstrdef 'keptstrdef.probes:5: or a"b: at most 128 bytes, no quotes or backslashes'
spec keptkey "$A" 'entry T' '	v i64 kept k node' '	id i64 t.ID' '	keep k proc = id'
refused keptkey "keptkey.probes:3: key 'node': not a one-value field above, nor proc"
spec nowhile "$A" 'entry T while main.nosuch' '	id i64 t.ID'
refused nowhile "nowhile.probes:2: while main.nosuch: no 'func main.nosuch' in the spec"
spec alone 'func main.run' "$A" 'entry T' '	id i64 t.ID'
refused alone "alone.probes:1: main.run has neither an entry nor a return event, and no 'while' names it"
spec clause "$A" 'entry T sometimes' '	id i64 t.ID'
refused clause "clause.probes:2: 'sometimes': expected 'by FIELD', 'while SYMBOL \[once\]' or 'per FIELD == VALUE'"
spec below "$A" 'entry T' '	x i64 = y + 1' '	y i64 t.ID'
refused below "below.probes:3: 'y': neither a field above nor a number"
spec calcslice "$A" 'entry T' '	bal i64 b.accounts[:8].Balance' '	x i64 = bal + 1'
refused calcslice 'calcslice.probes:4: bal is a slice'
spec dangling "$A" 'entry T' '	id i64 t.ID' '	x i64 = id +'
refused dangling 'dangling.probes:4: the end: expected an operand \(a field above, a number, min\(A, B\), max\(A, B\)\)'
spec badif "$A" 'entry T' '	id i64 t.ID' '	x i64 = if id 1 then 2 else 3'
refused badif "badif.probes:4: '1': expected 'then' after if's condition"
spec calcbool "$A" 'entry T' '	id i64 t.ID' '	x bool = id'
refused calcbool 'calcbool.probes:4: a computed bool is a comparison \(==, !=, <, <=, >, >=\)'
# Comparisons, min and max (tests/go/calc.probes has what they compute).
spec cmpint "$A" 'entry T' '	id i64 t.ID' '	x i64 = id < 3'
refused cmpint 'cmpint.probes:4: a comparison is a bool: give the field the type bool'
spec cmpsign "$A" 'entry T' '	id i64 t.ID' '	g u64 goid' '	x bool = id < g'
refused cmpsign "cmpsign.probes:5: '<': compares a signed and an unsigned field"
spec minsign "$A" 'entry T' '	id i64 t.ID' '	g u64 goid' '	x i64 = max(id, g)'
refused minsign "minsign.probes:5: 'max': compares a signed and an unsigned field"
spec minone "$A" 'entry T' '	id i64 t.ID' '	x i64 = min(id)'
refused minone "minone.probes:4: '\)': expected ',' after min"
spec minopen "$A" 'entry T' '	id i64 t.ID' '	x i64 = max(id, 1'
refused minopen "minopen.probes:4: the end: expected '\)' after max"
spec ifint "$A" 'entry T' '	id i64 t.ID' '	x i64 = if id then 1 else 2'
refused ifint 'ifint.probes:4: if: the condition is a comparison'
spec ifkinds "$A" 'entry T' '	id i64 t.ID' '	x i64 = if id > 1 then 1 else id > 2'
refused ifkinds 'ifkinds.probes:4: then and else: both integers or both comparisons'
spec addbool "$A" 'entry T' '	id i64 t.ID' '	x i64 = id + (id > 1)'
refused addbool "addbool.probes:4: '\+': takes integers, not comparisons"
spec eqkinds "$A" 'entry T' '	id i64 t.ID' '	x bool = (id > 1) == id'
refused eqkinds "eqkinds.probes:4: '==': compares an integer and a comparison"
spec badop "$A" 'entry T' '	id i64 t.ID' '	x i64 = id @ 2'
refused badop "badop.probes:4: '@': not a field, a number or an operator of a computed field"
# Bits, shifts, division (calc.probes has what they compute): where Go
# groups two operators otherwise than C and Rust, parentheses are needed.
spec shiftsum "$A" 'entry T' '	id i64 t.ID' '	x i64 = id + 1 << 2'
refused shiftsum "shiftsum.probes:4: '\+' and '<<': Go groups them otherwise than C and Rust: add parentheses"
spec andshift "$A" 'entry T' '	id i64 t.ID' '	x i64 = 0xff & id >> 8'
refused andshift "andshift.probes:4: '&' and '>>': Go groups them otherwise than C and Rust"
spec orxor "$A" 'entry T' '	id i64 t.ID' '	x i64 = id | 1 ^ 2'
refused orxor "orxor.probes:4: '\|' and '\^': Go groups them otherwise than C and Rust"
spec divsign "$A" 'entry T' '	id i64 t.ID' '	g u64 goid' '	x i64 = id / g'
refused divsign "divsign.probes:5: '/': divides a signed and an unsigned field"
spec shrsign "$A" 'entry T' '	id i64 t.ID' '	g u64 goid' '	x i64 = (id + g) >> 1'
refused shrsign "shrsign.probes:5: '>>': shifts a signed and an unsigned field"
spec notbool "$A" 'entry T' '	id i64 t.ID' '	x i64 = ~(id > 1)'
refused notbool "notbool.probes:4: '~': takes integers, not comparisons"
spec andbool "$A" 'entry T' '	id i64 t.ID' '	x bool = (id > 1) & (id < 3)'
refused andbool "andbool.probes:4: '&': takes integers, not comparisons"
spec trailing "$A" 'entry T' '	id i64 t.ID' '	x i64 = id 2'
refused trailing "trailing.probes:4: '2': unexpected here"
spec nodes "$A" 'entry T' '	id i64 t.ID' "	x i64 = id$(printf ' + id%.0s' {1..16})"
refused nodes 'nodes.probes:4: more than 32 operands and operations'
# by over a computed field works (calc.probes); what it cannot take:
spec bynone "$A" 'names K a b' 'entry K by nosuch' '	id i64 t.ID'
refused bynone 'bynone.probes:3: by nosuch: no field nosuch below'
spec byslice "$A" 'names K a b' 'entry K by bal' '	bal i64 b.accounts[:8].Balance'
refused byslice 'byslice.probes:3: by bal: a \[:N\] slice, and by takes one value'
spec perone "$A" 'entry T per id == 1' '	id i64 t.ID'
refused perone 'perone.probes:2: per id: one value, and per takes a \[:N\] slice'
spec pervalue "$A" 'entry T per bal == rich' '	bal i64 b.accounts[:8].Balance'
refused pervalue 'pervalue.probes:2: per bal == rich: a number or a name of its table'
spec both "$A" 'entry T' '	a i64 t.ID' '	a.b i64 t.Amount'
refused both 'both.probes:4: a.b and a \(line 3\): a key is a value or an object, not both'
spec apart "$A" 'entry T' '	s.a i64 t.ID' '	x i64 t.Amount' '	s.b i64 t.To'
refused apart 'apart.probes:5: s.b: the fields of an object are consecutive'
spec boolstring "$A" 'return A' '	ok bool ~r0 as string'
refused boolstring 'boolstring.probes:3: as string: only integers'
spec lateheader "$A" 'header kind' 'entry T' '	id i64 t.ID'
refused lateheader "lateheader.probes:2: one header, before any 'func'"
spec headerkey 'header kind' "$A" 'entry T' '	kind i64 t.ID'
refused headerkey "headerkey.probes:4: field name 'kind': kind is the header's key"
spec prockey "$A" 'entry T' '	proc.x i64 t.ID'
refused prockey "prockey.probes:3: field name 'proc.x': proc is the header's key"
spec badname "$A" 'entry T' '	a..b i64 t.ID'
refused badname "badname.probes:3: field name 'a..b': Go-like identifiers joined by dots"
# Numbers only the binary bounds: a table field's default by its Go type,
# an index by the offset a read reaches (it wrapped to element 0).
spec tabledef 'names K a b' "$A" 'entry T' '	from K t.From or 4294967296'
refused tabledef 'tabledef.probes:4: or 4294967296: out of range for i32 \(-2147483648 to 2147483647\)'
# A signed field's default is any number it holds, negative ones too; the
# range a refusal names is the type's.
spec negdef "$A" 'entry T' '	id i64 t.ID' '	fee i64 *t.Fee or -1'
if $CAPTURE go --probes "$TMP/negdef.probes" -o "$TMP/negdef" -- $BANK >"$TMP/negdef.out" \
	2>"$TMP/negdef.err" && out=$(python3 - "$TMP/negdef/events/bank.ndjson" "$TMP/negdef.out" <<'PY'
import json, re, sys
want = sorted((int(m[1]), -1 if m[2] == "none" else int(m[2])) for m in
              re.finditer(r"transfer (\d+) .* fee (\w+) ok", open(sys.argv[2]).read()))
got = sorted((e["id"], e["fee"]) for e in map(json.loads, open(sys.argv[1])))
if got != want or not any(fee == -1 for _, fee in want):
    sys.exit(f"(id, fee) pairs differ: {len(got)} events, {len(want)} logged")
print(f"{len(got)} events, {sum(fee == -1 for _, fee in got)} without a fee")
PY
); then
	ok "or -1 on an i64: -1 where the fee is nil ($out)"
else
	not_ok "or -1 on an i64" "${out:-$(tail -n 2 "$TMP/negdef.err")}"
fi
spec negsmall "$A" 'entry T' '	from i8 t.From or -129'
refused negsmall 'negsmall.probes:3: or -129: out of range for i8 \(-128 to 127\)'
spec posbig "$A" 'entry T' '	from i8 t.From or 128'
refused posbig 'posbig.probes:3: or 128: out of range for i8 \(-128 to 127\)'
spec negunsigned "$A" 'entry T' '	from u32 t.From or -1'
refused negunsigned 'negunsigned.probes:3: or -1: a negative default needs a signed field'
spec farindex "$A" 'entry T' '	bal i64 b.accounts[4294967296].Balance'
refused farindex "farindex.probes:3: .*b\.accounts\[4294967296\]\.Balance: index 4294967296: further than a read's offset reaches"
spec hugeindex "$A" 'entry T' '	bal i64 b.accounts[99999999999999999999].Balance'
refused hugeindex 'hugeindex.probes:3: .*expected \[N\], N a constant index'

spec nogroup "$A" 'entry T' '	use xfer t'
refused nogroup 'nogroup.probes:3: no group xfer above'
spec useout 'group g X' '	id i64 X.ID' 'use g t'
refused useout 'useout.probes:3: use outside an entry or return'
spec grouptwice 'group g X' '	id i64 X.ID' 'group g Y'
refused grouptwice 'grouptwice.probes:3: group g defined twice \(line 1\)'
spec emptygroup 'group g X' "$A" 'entry T' '	use g t'
refused emptygroup 'emptygroup.probes:4: group g \(line 1\) has no fields'
spec groupfield 'group g X' '	id i64 X.ID' '	memo i64 X.Memo' "$A" 'entry T' '	use g t'
refused groupfield 'groupfield.probes:3: .*t\.Memo: main\.Transfer has no field Memo'

# Failures while running: exit 6 at the spec's line, nothing written.
spec once 'func main.worker' 'func main.(*Bank).report' 'entry R while main.worker once' '	n i64 len(owners)'
expect_exit 6 "a call that returns without its 'once' event fails at the event's line" \
	'once.probes:3: main.worker returned without event R' \
	$CAPTURE go --probes "$TMP/once.probes" -o "$TMP/x1" -- "$TMP/bank"
nothing_left "no corpus after a missing 'once' event" "$TMP/x1"
spec nilcalc "$A" 'entry T' '	fee i64 *t.Fee hidden' '	amount i64 t.Amount' '	net i64 = amount - fee'
expect_exit 6 "a computed field over a nil value fails at its line" \
	'nilcalc.probes:5: net: fee is nil' \
	$CAPTURE go --probes "$TMP/nilcalc.probes" -o "$TMP/x2" -- "$TMP/bank"
nothing_left "no corpus after a nil operand" "$TMP/x2"
spec divzero "$A" 'entry T' '	fee i64 *t.Fee or 0 hidden' '	amount i64 t.Amount' '	per i64 = amount / fee'
expect_exit 6 "a division by zero fails at the field's line" \
	'divzero.probes:5: per: divided by zero \(fee is 0\)' \
	$CAPTURE go --probes "$TMP/divzero.probes" -o "$TMP/x4" -- "$TMP/bank"
nothing_left "no corpus after a division by zero" "$TMP/x4"
spec negshift "$A" 'entry T' '	from i32 t.From' '	to i32 t.To' '	x i64 = 1 << (to - from)'
expect_exit 6 "a shift by a negative count fails at the field's line" \
	'negshift.probes:5: x: shifted by a negative count' \
	$CAPTURE go --probes "$TMP/negshift.probes" -o "$TMP/x5" -- "$TMP/bank"
nothing_left "no corpus after a negative shift" "$TMP/x5"
spec never "$A" 'entry T' '	from i32 t.From' '	last i64 kept paid proc from' '	amount i64 t.Amount' '	keep paid proc from = amount'
expect_exit 6 "a value never kept, without 'or', fails at the field's line" \
	"never.probes:4: last: nothing kept in paid for proc 0, from [0-9]+ \\(give it 'or VALUE'\\)" \
	$CAPTURE go --probes "$TMP/never.probes" -o "$TMP/x3" -- "$TMP/bank"
nothing_left "no corpus after a value never kept" "$TMP/x3"
