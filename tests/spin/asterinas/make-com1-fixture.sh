#!/usr/bin/env bash
# Build a COM1 log fixture (com1-NAME.log) in the shape `cargo osdk test`
# leaves in qemu.log for the generated scenario test:
#
#	ASTERINAS_SRC=DIR tests/spin/asterinas/make-com1-fixture.sh NAME [SCENARIO_HOME]
#
# The events are real: host-run.sh runs the generated test against the
# patched v0.16.0 lock code.  Around them: representative OVMF/GRUB boot
# lines (noise to the folder), then the v0.16.0 ktest runner's lines as
# osdk/deps/test-kernel/src/lib.rs prints them ("test PATH ..." without a
# newline, the events, " ok" in green, the result line).  The test counts
# are those of a v0.16.0 ostd test build plus the scenario test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: make-com1-fixture.sh NAME [SCENARIO_HOME]}
fn=capture_spin_${name//-/_}
esc=$'\e'
ok="${esc}[32mok${esc}[39m"

{
	printf 'BdsDxe: loading Boot0001 "UEFI QEMU DVD-ROM QM00005 " from PciRoot(0x0)/Pci(0x1F,0x2)/Sata(0x2,0xFFFF,0x0)\r\n'
	printf 'BdsDxe: starting Boot0001 "UEFI QEMU DVD-ROM QM00005 " from PciRoot(0x0)/Pci(0x1F,0x2)/Sata(0x2,0xFFFF,0x0)\r\n'
	printf '%s[2J%s[01;01H%s[=3h%s[2J%s[01;01H' "$esc" "$esc" "$esc" "$esc" "$esc"
	printf '\n[ktest runner] running 177 tests in 3 crates\n'
	printf '\n[ktest runner] skipping crate "osdk-frame-allocator".\n'
	printf '\n[ktest runner] skipping crate "osdk-test-kernel".\n'
	printf '\nrunning 160 tests in crate "ostd"\n\n'
	printf 'test ostd::sync::spin::capture::scenario::%s ...' "$fn"
	# From the newline begin() prints through CAPTURE END.
	"$here/host-run.sh" "$@" | sed -n '/^CAPTURE BEGIN/,/^CAPTURE END/p' |
		sed '1s/^/\n/'
	printf ' %s\n' "$ok"
	printf '\ntest result: %s. 1 passed; 0 failed; 159 filtered out.\n' "$ok"
	printf '\n[ktest runner] All crates tested.\n'
} >"$here/com1-$name.log"
