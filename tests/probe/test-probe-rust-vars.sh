#!/bin/bash
# capture probe's Rust statics and atomics (docs/probes.md, "Rust"): the
# Rust gauge (tests/probe/rust-gauge: threads taking turns on a state that
# is one packed static AtomicU64) built by cargo as a debug build and a
# release build (where LLVM scatters a static struct of atomics into
# pieces, DW_OP_piece, each at its own address), traced by
# tests/probe/rust-gauge.probes (the word split by computed fields, a
# module's static by its path, a static mut, a static struct, an atomic
# of every width, an AtomicPtr followed to its struct) and checked against
# its own log (check-gauge.py), the same events from both builds (pause's
# return too, which a release build takes by a jump through the GOT); an
# AtomicPtr read as a value and a misspelt static refused with exit 3,
# SPEC:LINE and nothing written.
# needs: root btf python3 cargo
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/probe-lib.sh"
D=$TESTS_DIR/probe
W=3 OPS=20
CARGO=$(cargo_tool)
T=$ROOT/build/probe-rust-gauge

for profile in dev release; do
	out=$profile
	[ "$profile" = dev ] && out=debug
	CARGO_TARGET_DIR=$T nice "$CARGO" build -q --locked --profile "$profile" \
		--manifest-path "$D/rust-gauge/Cargo.toml" 2>"$TMP/cargo.err" ||
		not_ok "cargo build the gauge --profile $profile" "$(tail -n 2 "$TMP/cargo.err")"
	cp "$T/$out/gauge" "$TMP/$out"
done
if readelf --debug-dump=info "$TMP/release" 2>/dev/null | grep -A7 ': FLAGS$' |
	grep -q 'DW_OP_addr: [0-9a-f]*; DW_OP_piece: 8; DW_OP_addr'; then
	ok "release: the static FLAGS is in pieces, each at its own address"
else
	not_ok "release: the static FLAGS is in pieces, each at its own address" "rustc placed it whole"
fi
captured "$D/rust-gauge.probes" "$D/check-gauge.py" \
	"a packed static atomic split, a module's static, a static mut, atomics of every width" \
	debug release
can_fail "$D/check-gauge.py" release '5s/flags.wide=\(-*[0-9]*\)/flags.wide=9\1/' "AtomicI16"
can_fail "$D/check-gauge.py" debug '7s/ticks=\([0-9]*\)/ticks=9\1/' "module's static"
can_fail "$D/check-gauge.py" release '4s/pause worker=\([0-9]*\)/pause worker=9\1/' "pause"
if objdump -d -M intel "$TMP/release" | awk '/<_ZN5gauge5pause17h[0-9a-f]*E>:/,/^$/' |
	grep -q 'jmp *QWORD PTR \[rip'; then
	ok "release: pause returns by a jump through the GOT"
else
	not_ok "release: pause returns by a jump through the GOT" "rustc compiled it otherwise"
fi

A='func gauge::apply'
spec atomicptr "$A" 'entry A' '	x u64 gauge::FLAGS.last'
refused atomicptr 'atomicptr.probes:3: .*release: gauge::FLAGS.last: AtomicPtr<gauge::Config> is an address' "$TMP/release"
spec misspelt "$A" 'entry A' '	x u64 gauge::STAT'
refused misspelt 'misspelt.probes:3: .*debug: gauge::STAT: apply has no argument or result gauge, and the binary no variable gauge::STAT \(did you mean gauge::STATE' "$TMP/debug"
