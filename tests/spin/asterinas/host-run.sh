#!/usr/bin/env bash
# Run a spin scenario's generated kernel test against the patched lock code
# of an Asterinas v0.16.0 checkout, on the host (see host-harness/lib.rs):
#
#	ASTERINAS_SRC=DIR tests/spin/asterinas/host-run.sh NAME [SCENARIO_HOME]
#
# Prints what the test wrote to the "serial port": the rustc test runner's
# lines with CAPTURE BEGIN, the events and CAPTURE END amid them.
# SCENARIO_HOME (default: the capture tree) holds scenarios/spin/NN-NAME.
# Needs rustc (any recent stable: RUSTC_BOOTSTRAP lets it accept ostd's
# negative impls) and git.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
name=${1:?usage: host-run.sh NAME [SCENARIO_HOME]}
home=${2:-$root}
src=${ASTERINAS_SRC:?set ASTERINAS_SRC to an Asterinas v0.16.0 checkout}
capture=${CAPTURE:-$root/build/capture}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/tree" "$work/crate/sync/spin/capture"
git -C "$src" archive v0.16.0 ostd/Cargo.toml ostd/src/sync/spin.rs |
	tar -x -C "$work/tree"
(cd "$work/tree" && git apply "$root/patches/asterinas-v0.16.0/capture-trace.patch")
cp "$here/host-harness/lib.rs" "$work/crate/lib.rs"
cp "$work/tree/ostd/src/sync/spin.rs" "$work/crate/sync/spin.rs"
cp "$work/tree/ostd/src/sync/spin/capture.rs" "$work/crate/sync/spin/capture.rs"
CAPTURE_HOME=$home "$capture" spin --kernel asterinas --emit-ktest \
	--scenario "$name" >"$work/crate/sync/spin/capture/scenario.rs"
RUSTC_BOOTSTRAP=1 rustc --edition 2021 --crate-name ostd --test \
	--cfg ktest --cfg 'feature="capture-trace"' -A warnings \
	-o "$work/test" "$work/crate/lib.rs" >&2
"$work/test" --nocapture --test-threads=1
