#!/bin/bash
# capture probe on a Rust program (docs/probes.md, "Rust"): the toy till
# (tests/probe/rust: threads taking turns under a Mutex, an enum with
# data, Strings, a Vec, Options, trait objects, a VecDeque, a HashMap, a
# HashSet, a struct passed by reference) built by cargo as a debug build, a
# release build (opt-level 2 with debug information: location lists) and
# a release build with v0 symbol mangling, traced by
# tests/probe/till.probes alone and checked against its own log
# (check-till.py); the same events from every build; the manifest's
# language; every refusal (a value optimized out, a field DWARF lacks, a
# variant the enum lacks, an enum read as an integer, a variant not in
# the field's table, a misspelt function, a binary without DWARF, a
# value DWARF computes, a trait object asserted to a type with no vtable
# or to no pointer type, a VecDeque indexed) with exit 3, its SPEC:LINE or binary, and nothing
# written.
# needs: root btf python3 jq cargo
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/probe-lib.sh"
D=$TESTS_DIR/probe
W=3 OPS=30
CARGO=$(cargo_tool)
# The target directories stay between runs under build/, as build/'s C
# objects do; cargo's own cache is CARGO_HOME's (no crate is downloaded).
T=$ROOT/build/probe-rust

build() {   # build NAME TARGET_DIR PROFILE: the till, as $TMP/NAME
	local name=$1 dir=$2 profile=$3 out=$3
	[ "$profile" = dev ] && out=debug   # cargo's directory of the dev profile
	CARGO_TARGET_DIR=$T/$dir nice "$CARGO" build -q --locked --profile "$profile" \
		--manifest-path "$D/rust/Cargo.toml" 2>"$TMP/cargo.err" ||
		not_ok "cargo build $name" "$(tail -n 2 "$TMP/cargo.err")"
	cp "$T/$dir/$out/till" "$TMP/$name"
}
build debug legacy dev
build release legacy release
RUSTFLAGS=-Csymbol-mangling-version=v0 build v0 v0 release

# The debug build reaches settle's batch through the slot of its pointer:
# what the same events from every build then prove read.
if readelf --debug-dump=info "$TMP/debug" 2>/dev/null |
	grep -A1 'DW_OP_fbreg: [0-9]*; DW_OP_deref)' | grep -q ': batch$'; then
	ok "debug: settle's batch is at DW_OP_fbreg N, DW_OP_deref"
else
	not_ok "debug: settle's batch is at DW_OP_fbreg N, DW_OP_deref" "rustc placed it elsewhere"
fi
captured "$D/till.probes" "$D/check-till.py" \
	"variants, their fields, Vec elements, Strings, Options, results, dyn Rule, collections" \
	debug release v0
can_fail "$D/check-till.py" release '3s/result=\([0-9]*\)/result=9\1/' result
can_fail "$D/check-till.py" debug '/^review round=3 /s/settled=/settled=9/' "settled sum"
can_fail "$D/check-till.py" v0 '/^review round=3 /s/queue=2/queue=3/' "queue's length"
can_fail "$D/check-till.py" debug '/^review round=3 /s/rule=cap(25)/rule=quiet(2)/' "review's rule"

# A Vec's Strings, and an Option's String in each element: str slices.
printf '%s\n' 'func till::shop::Till::apply' 'return Applied' \
	'	named str self.accounts[:4].name[:8]' '	owners str self.accounts[:2].owner.Some.0.name[:8]' \
	>"$TMP/strs.probes"
if $CAPTURE probe --probes "$TMP/strs.probes" -o "$TMP/strs" -- "$TMP/release" $W $OPS \
	>"$TMP/strs.out" 2>"$TMP/strs.err" && out=$(python3 - "$TMP/strs/events/release.ndjson" \
	"$TMP/strs.out" 2>&1 <<'PY'
import json, re, sys
owner = {int(m[1]): m[2] for m in re.finditer(r"^owner account=(\d) id=\d+ name=(\w+)$",
                                              open(sys.argv[2]).read(), re.M)}
want = {"named": ["alice", "bob", "carol", "dave"],
        "owners": {"first": [owner.get(0), owner.get(1)], "len": 4}}
events = [json.loads(line) for line in open(sys.argv[1])]
for e in events:
    if {k: e[k] for k in want} != want:
        sys.exit(f"got {e}, want {want}")
print(f"{len(events)} events")
PY
); then
	ok "str slices: each account's name, each owner's (null for none) ($out)"
else
	not_ok "str slices: each account's name, each owner's" "${out:-$(tail -n 2 "$TMP/strs.err")}"
fi
M=$TMP/c-release/MANIFEST.json
want_id=$(readelf -n "$TMP/release" | sed -n 's/.*Build ID: //p')
if [ "$(jq -r .environment.language "$M")" = Rust ] &&
   [ "$(jq -r .environment.build_id "$M")" = "$want_id" ] &&
   [ "$(jq -r '.events.Apply' "$M")" = $((W * OPS)) ]; then
	ok "manifest: the language Rust, the GNU build id, $((W * OPS)) operations"
else
	not_ok "manifest: the language and build id" "$(jq -c .environment "$M")"
fi

# One instantiation by its type arguments: a legacy symbol lacks them
# (DWARF's DW_AT_name has them), a v0 symbol has them.
spec one 'func till::shop::audit::<till::shop::Account>' 'return A' '	round u32 round'
for bin in release v0; do
	$CAPTURE probe --probes "$TMP/one.probes" -o "$TMP/one-$bin" -- "$TMP/$bin" $W $OPS \
		>/dev/null 2>"$TMP/one.err" || true
	check "$bin: one instantiation of a generic function by its type arguments" \
		[ "$(cat "$TMP/one-$bin/events/$bin.ndjson" 2>/dev/null)" = '{"event":"A","proc":0,"round":'$OPS'}' ]
done
# A trait's method, <Type as Trait>::method, written in double quotes (its
# blanks are the name's), in `func` and in `while`: Cap's allows is asked
# by each review whose rule is a Cap, then by its policy (a Cap) when the
# rule allowed, with the review's cents.
spec trait 'func "<till::shop::Cap as till::shop::Rule>::allows" # a comment' \
	'entry Allows while "till::shop::Till::review"' '	cents i64 cents' \
	'func till::shop::Till::review'
for bin in release v0; do
	if $CAPTURE probe --probes "$TMP/trait.probes" -o "$TMP/trait-$bin" -- "$TMP/$bin" $W $OPS \
		>"$TMP/trait.out" 2>"$TMP/trait.err" && out=$(python3 - \
		"$TMP/trait-$bin/events/$bin.ndjson" "$TMP/trait.out" 2>&1 <<'PY'
import json, re, sys
want = []
for m in re.finditer(r"^review round=\d+ account=(\d+) cents=(\d+) rule=(cap|quiet)\((\d+)\) "
                     r"policy=(cap|quiet)\((\d+)\)", open(sys.argv[2]).read(), re.M):
    account, cents, rule, arg, policy, parg = int(m[1]), int(m[2]), m[3], int(m[4]), m[5], int(m[6])
    if rule == "cap":
        want.append(cents)
    if (cents <= arg if rule == "cap" else account != arg) and policy == "cap":
        want.append(cents)
got = [json.loads(line)["cents"] for line in open(sys.argv[1])]
if not want or got != want:
    sys.exit(f"got {got}, want {want}")
print(f"{len(got)} calls")
PY
); then
		ok "$bin: a trait's method by its quoted name, in func and while ($out)"
	else
		not_ok "$bin: a trait's method by its quoted name" "${out:-$(tail -n 2 "$TMP/trait.err")}"
	fi
done
# What a spec cannot name bare, the did-you-mean offers quoted; a v0
# closure's # inside quotes is the name's, not a comment.
spec traitbare 'func till::shop::Cap::allows' 'entry A' '	c i64 cents'
refused traitbare 'traitbare.probes:1: .*no function till::shop::Cap::allows \(did you mean "<till::shop::Cap as till::shop::Rule>::allows"' "$TMP/v0"
spec closure 'func "till::main::{closure#3}"' 'entry C'
refused closure 'closure.probes:1: .*till::main::\{closure#3\}.*inlined' "$TMP/v0"
spec unclosed 'func "<till::shop::Cap as till::shop::Rule>::allows' 'entry A'
refused unclosed 'unclosed.probes:1: a quoted name without its closing "' "$TMP/v0"
spec verbose 'func till::shop::Till::find' 'entry F' '	v bool verbose'
refused verbose 'verbose.probes:3: .*release: verbose: argument verbose of find is optimized out at the probe site' "$TMP/release"
spec nofield 'func till::shop::Till::apply' 'entry A' '	c i64 op.Transfer.amount'
refused nofield 'nofield.probes:3: .*debug: op.Transfer.amount: Transfer has no field amount' "$TMP/debug"
spec novariant 'func till::shop::Till::apply' 'entry A' '	c i64 op.Refund.cents'
refused novariant 'novariant.probes:3: .*release: op.Refund.cents: enum Op has no variant Refund \(its variants: Deposit, Withdraw, Transfer, Freeze\)' "$TMP/release"
spec notable 'func till::shop::Till::apply' 'entry A' '	k u64 op'
refused notable 'notable.probes:3: op is the enum Op: read which variant it is by a table' "$TMP/release"
spec short 'names k Deposit Withdraw' 'func till::shop::Till::apply' 'entry A' '	c k op'
refused short 'short.probes:4: op: variant Transfer of Op is not in table k' "$TMP/v0"
spec misspelt 'func till::shop::Till::aply' 'entry A' '	w u32 worker'
refused misspelt 'misspelt.probes:1: .*v0: no function till::shop::Till::aply \(did you mean till::shop::Till::apply' "$TMP/v0"
spec computed 'func hashbrown::raw::RawTable::reserve_rehash' 'entry R' '	f u8 fallibility'
refused computed 'computed.probes:3: .*release: fallibility: argument fallibility of reserve_rehash<.* is computed at the probe site \(DW_OP 0x31\), not stored' "$TMP/release"
spec novtable 'func till::shop::Till::review' 'entry R' '	n u64 rule.(*till::shop::Till).applied'
refused novtable 'novtable.probes:3: .*debug: rule.\(\*till::shop::Till\).applied: .\(\*till::shop::Till\): no vtable of <till::shop::Till as till::shop::Rule> in the binary' "$TMP/debug"
spec notpointer 'func till::shop::Till::review' 'entry R' '	m i64 rule.(till::shop::Cap).max'
refused notpointer 'notpointer.probes:3: .*release: rule.\(till::shop::Cap\).max: .\(till::shop::Cap\): a trait object is asserted to point to a type, .\(\*T\)' "$TMP/release"
spec deque 'func till::shop::Till::review' 'return R' '	q i64 self.queue[0]'
refused deque 'deque.probes:3: .*v0: self.queue\[0\]: VecDeque<i64, alloc::alloc::Global>: its elements are not read' "$TMP/v0"
strip -o "$TMP/stripped" "$TMP/release"
cp "$TMP/nofield.probes" "$TMP/nodwarf.probes"
refused nodwarf 'capture: [^ ]*stripped: no DWARF debug information' "$TMP/stripped"
