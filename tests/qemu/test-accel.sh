#!/usr/bin/env bash
# The accelerator is chosen by a guest that showed life, once per host: a
# stand-in QEMU (tests/qemu/stand-in-qemu) plays a KVM that never
# boots and one that does.  Real QEMU underneath; a private cache that
# shares the real one's kernel, module and initramfs.
# needs: qemu reference
# serial
source "$(dirname "$0")/../lib.sh"

ref=$REF/sysmobench-corpora/spin
cache=${CAPTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capture}
stand_in=$ROOT/tests/qemu/stand-in-qemu
unset CAPTURE_ACCEL

# Fill the real cache first (kernel, module, initramfs).
check "fill the cache" "$CAPTURE" spin --scenario contention -o "$TMP/fill"

# private_cache NAME: a cache of its own but for the big shared builds.
private_cache() {
	local c=$TMP/cache-$1
	mkdir -p "$c"
	for d in kernel modules initramfs; do ln -s "$cache/$d" "$c/$d"; done
	echo "$c"
}

# calls LOG ACCEL: how often the stand-in was started under ACCEL.
calls() { grep -c "^$2\$" "$1" || true; }

kvm_usable() { exec 3<>/dev/kvm; } 2>/dev/null

run_with() { # MODE CACHE LOG OUT
	env CAPTURE_QEMU="$stand_in" STAND_IN_KVM=$1 CAPTURE_CACHE=$2 STAND_IN_LOG=$3 \
		CAPTURE_GUEST_TIMEOUT=120 "$CAPTURE" spin --scenario contention -o "$4"
}

c=$(private_cache silent)
if run_with silent "$c" "$TMP/silent.log" "$TMP/s1" 2>"$TMP/s1.err"; then
	ok "silent KVM: first capture succeeds"
else
	not_ok "silent KVM: first capture succeeds" "$(tail -n 3 "$TMP/s1.err")"
fi
same_bytes "silent KVM: windows = spin_2thread.ndjson" \
	"$TMP/s1/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
grep -q '"accelerator": "tcg"' "$TMP/s1/MANIFEST.json" &&
	ok "silent KVM: the manifest says tcg" ||
	not_ok "silent KVM: the manifest says tcg" "$(grep accelerator "$TMP/s1/MANIFEST.json")"
if kvm_usable; then
	[ "$(calls "$TMP/silent.log" kvm)" = 1 ] &&
		ok "silent KVM: probed once" ||
		not_ok "silent KVM: probed once" "$(cat "$TMP/silent.log")"
	# Given up on the evidence (TCG reached /init), not by a timeout.
	grep -Eq 'no life within [0-9.]+ s, twice what TCG needed|TCG guest finished before' "$TMP/s1.err" &&
		! grep -q 'CAPTURE_GUEST_TIMEOUT' "$TMP/s1.err" &&
		ok "silent KVM: given up when TCG showed life" ||
		not_ok "silent KVM: given up when TCG showed life" "$(cat "$TMP/s1.err")"
else
	[ "$(calls "$TMP/silent.log" kvm)" = 0 ] &&
		grep -q 'no usable /dev/kvm' "$TMP/s1.err" &&
		ok "no /dev/kvm: TCG without a probe" ||
		not_ok "no /dev/kvm: TCG without a probe" "$(cat "$TMP/s1.err")"
fi
: >"$TMP/silent.log"
check "silent KVM: second capture" run_with silent "$c" "$TMP/silent.log" "$TMP/s2"
[ "$(calls "$TMP/silent.log" kvm)" = 0 ] && [ "$(calls "$TMP/silent.log" tcg)" = 1 ] &&
	ok "silent KVM: second capture does not probe" ||
	not_ok "silent KVM: second capture does not probe" "$(cat "$TMP/silent.log")"
# (but for the raw ftrace pages, whose time stamps vary: docs/spin.md)
diff -r -x '*.ftrace' "$TMP/s1" "$TMP/s2" >"$TMP/diff" &&
	ok "silent KVM: first and second corpus identical" ||
	not_ok "silent KVM: first and second corpus identical" "$(head -n 5 "$TMP/diff")"

# A KVM that boots is chosen and recorded.
if kvm_usable; then
	c=$(private_cache works)
	check "working KVM: capture" run_with works "$c" "$TMP/works.log" "$TMP/w1"
	grep -q '"accelerator": "kvm"' "$TMP/w1/MANIFEST.json" &&
		ok "working KVM: the manifest says kvm" ||
		not_ok "working KVM: the manifest says kvm" "$(grep accelerator "$TMP/w1/MANIFEST.json")"
	same_bytes "working KVM: windows = spin_2thread.ndjson" \
		"$TMP/w1/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
	: >"$TMP/works.log"
	check "working KVM: second capture" run_with works "$c" "$TMP/works.log" "$TMP/w2"
	[ "$(calls "$TMP/works.log" kvm)" = 1 ] && [ "$(calls "$TMP/works.log" tcg)" = 0 ] &&
		ok "working KVM: second capture uses KVM alone" ||
		not_ok "working KVM: second capture uses KVM alone" "$(cat "$TMP/works.log")"
fi

# CAPTURE_ACCEL forces, with no probe and no TCG twin.
: >"$TMP/forced.log"
check "CAPTURE_ACCEL=kvm" env CAPTURE_ACCEL=kvm CAPTURE_QEMU="$stand_in" STAND_IN_KVM=works \
	STAND_IN_LOG="$TMP/forced.log" CAPTURE_CACHE="$(private_cache forced)" \
	"$CAPTURE" spin --scenario contention -o "$TMP/f1"
# (two starts: one saves the guest's snapshot, one restores it)
[ "$(calls "$TMP/forced.log" kvm)" = 2 ] && [ "$(calls "$TMP/forced.log" tcg)" = 0 ] &&
	ok "CAPTURE_ACCEL=kvm: KVM alone" || not_ok "CAPTURE_ACCEL=kvm: KVM alone" "$(cat "$TMP/forced.log")"
expect_exit 2 "CAPTURE_ACCEL=bogus is a usage error" 'CAPTURE_ACCEL must be tcg or kvm' \
	env CAPTURE_ACCEL=bogus "$CAPTURE" spin --scenario contention -o "$TMP/bogus"
nothing_left "CAPTURE_ACCEL=bogus: no output" "$TMP/bogus"
