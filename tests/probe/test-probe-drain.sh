#!/bin/bash
# The engine's ring drains (docs/engine.md, "Handing records over"):
# the probes wake the consumer only once the ring is a quarter full, so
# the records of a run that never fills it so far reach the consumer by
# its poll timer and by the drain after the detach; the engine counts
# the records the probes sent against those it received and fails the
# capture if they differ.  The till's release build (tests/probe/rust) under
# bench/rust-apply.probes, `till bench N`: N calls of Till::apply, one
# record each, every one an event.
# needs: root btf cargo
source "$(dirname "$0")/../lib.sh"
CARGO=$(cargo_tool)
T=$ROOT/build/probe-rust/legacy
CARGO_TARGET_DIR=$T nice "$CARGO" build -q --locked --release \
	--manifest-path "$TESTS_DIR/probe/rust/Cargo.toml" 2>"$TMP/cargo.err" ||
	not_ok "cargo build" "$(tail -n 2 "$TMP/cargo.err")"
cp "$T/release/till" "$TMP/till"

# runs WHAT N [OPTION...]: every call of `till bench N` an event, exit 0
runs() {
	local what=$1 n=$2 got; shift 2
	rm -rf "$TMP/c"
	if $CAPTURE probe --probes "$ROOT/bench/rust-apply.probes" "$@" -o "$TMP/c" -- \
		"$TMP/till" bench "$n" >/dev/null 2>"$TMP/err"; then
		got=$(grep -c '"event":"Apply"' "$TMP/c/events/till.ndjson")
		check "$what: $n calls, $got events" [ "$got" = "$n" ]
	else
		not_ok "$what: capture probe" "$(grep -v 'attached as' "$TMP/err" | tail -n 2)"
	fi
}
# 2000 records (208 KB) stay below the wake-up mark (256 KiB of the 1 MiB ring).
runs "below the wake-up mark, drained by the timer and after the detach" 2000
