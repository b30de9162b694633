#!/usr/bin/env bash
# Guest snapshots (docs/spin.md, "How a capture runs"): the first capture
# saves one and restores it, later ones only restore; a snapshot that does
# not restore (corrupt, or stale: another guest's under this one's key)
# falls back to a full boot, said on stderr, and the next capture saves a
# new one; a changed input (the guest's CPUs, the QEMU binary) is another
# key; CAPTURE_GUEST_BOOT=lean and classic boot in full.  Real QEMU, a
# private cache that shares the real one's kernel, module and initramfs.
source "$(dirname "$0")/../lib.sh"

ref=$REF/sysmobench-corpora/spin
cache=${CAPTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capture}

# Fill the real cache first (kernel, module, initramfs).
check "fill the cache" "$CAPTURE" spin --scenario contention -o "$TMP/fill"
c=$TMP/cache
mkdir -p "$c"
for d in kernel modules initramfs helpers accel; do
	[ -e "$cache/$d" ] && ln -s "$cache/$d" "$c/$d"
done

# run NAME OUT [VAR=VALUE...] [-- ARG...]: capture contention into OUT
# with the private cache, stderr into OUT.err.
run() {
	local name=$1 out=$2 vars=() args=(); shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift && args=("$@")
	if env CAPTURE_CACHE="$c" "${vars[@]}" "$CAPTURE" spin --scenario contention \
		-o "$out" "${args[@]}" 2>"$out.err"; then
		ok "$name"
	else
		not_ok "$name" "$(tail -n 3 "$out.err")"
	fi
}
# says NAME FILE REGEX: FILE matches REGEX.
says() {
	grep -Eq -- "$3" "$2" && ok "$1" || not_ok "$1" "$(tail -n 4 "$2")"
}
says_not() {
	! grep -Eq -- "$3" "$2" && ok "$1" || not_ok "$1" "$(grep -E -- "$3" "$2")"
}
snapshots() { ls "$c/snapshot" 2>/dev/null | grep -c '\.vm$' || true; }
key_of() { grep -o '"snapshot": "[0-9a-f]\{16\}"' "$1" | grep -o '[0-9a-f]\{16\}'; }
# same_corpus NAME A B: but for the raw ftrace pages, whose time stamps vary.
same_corpus() {
	diff -r -x '*.ftrace' "$2" "$3" >"$TMP/diff" && ok "$1" ||
		not_ok "$1" "$(head -n 5 "$TMP/diff")"
}

run "first capture" "$TMP/s1"
says "first capture: saves a snapshot" "$TMP/s1.err" 'to save a snapshot of it'
says "first capture: restores it" "$TMP/s1.err" 'restoring the spin-contention guest .* from its snapshot'
same_bytes "first capture: windows = spin_2thread.ndjson" \
	"$TMP/s1/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
says "first capture: the manifest says snapshot" "$TMP/s1/MANIFEST.json" \
	'"guest_boot": "snapshot"'
key=$(key_of "$TMP/s1/MANIFEST.json")
[ -n "$key" ] && [ -s "$c/snapshot/$key.vm" ] &&
	ok "first capture: the manifest's key names the snapshot" ||
	not_ok "first capture: the manifest's key names the snapshot" "key '$key': $(ls "$c/snapshot")"

run "second capture" "$TMP/s2"
says_not "second capture: saves nothing" "$TMP/s2.err" 'save a snapshot|booting the'
same_corpus "first and second corpus identical" "$TMP/s1" "$TMP/s2"
run "boot-only from the snapshot" "$TMP/b1" -- --boot-only
says_not "boot-only: saves nothing" "$TMP/b1.err" 'save a snapshot|booting the'

# Corrupt: the file cut to its first MB.
head -c 1048576 "$c/snapshot/$key.vm" >"$TMP/cut" && mv "$TMP/cut" "$c/snapshot/$key.vm"
run "corrupt snapshot: capture succeeds" "$TMP/x1"
says "corrupt snapshot: said on stderr" "$TMP/x1.err" 'its snapshot did not restore'
says "corrupt snapshot: booted in full" "$TMP/x1.err" 'booting the spin-contention guest'
same_bytes "corrupt snapshot: windows = spin_2thread.ndjson" \
	"$TMP/x1/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
says "corrupt snapshot: the manifest says lean" "$TMP/x1/MANIFEST.json" '"guest_boot": "lean"'
[ ! -e "$c/snapshot/$key.vm" ] && ok "corrupt snapshot: removed" ||
	not_ok "corrupt snapshot: removed" "$(ls -l "$c/snapshot")"
run "after the corrupt one" "$TMP/x2"
says "after the corrupt one: a new snapshot saved" "$TMP/x2.err" 'to save a snapshot of it'
same_corpus "after the corrupt one: the first corpus again" "$TMP/s1" "$TMP/x2"

# A changed input is another key: two CPUs save a snapshot of their own.
before=$(snapshots)
run "two CPUs: capture" "$TMP/c2" -- --cpus 2
says "two CPUs: a snapshot of their own" "$TMP/c2.err" 'to save a snapshot of it'
[ "$(snapshots)" = $((before + 1)) ] && ok "two CPUs: another snapshot file" ||
	not_ok "two CPUs: another snapshot file" "$(ls "$c/snapshot")"
key2=$(key_of "$TMP/c2/MANIFEST.json")
[ -n "$key2" ] && [ "$key2" != "$key" ] && ok "two CPUs: another key" ||
	not_ok "two CPUs: another key" "'$key2' vs '$key'"

# Stale: a valid snapshot of another guest (two CPUs) under one CPU's key.
cp "$c/snapshot/$key2.vm" "$c/snapshot/$key.vm"
run "stale snapshot: capture succeeds" "$TMP/t1"
says "stale snapshot: said on stderr" "$TMP/t1.err" 'its snapshot did not restore'
same_bytes "stale snapshot: windows = spin_2thread.ndjson" \
	"$TMP/t1/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"

# Another QEMU binary (a wrapper in front of the same one) is another key.
printf '#!/bin/sh\nexec qemu-system-x86_64 "$@"\n' >"$TMP/qemu" && chmod +x "$TMP/qemu"
run "another QEMU: capture" "$TMP/q1" CAPTURE_QEMU="$TMP/qemu"
says "another QEMU: saves a snapshot of its own" "$TMP/q1.err" 'to save a snapshot of it'
key3=$(key_of "$TMP/q1/MANIFEST.json")
[ -n "$key3" ] && [ "$key3" != "$key" ] && ok "another QEMU: another key" ||
	not_ok "another QEMU: another key" "'$key3' vs '$key'"

# The full boots stay selectable, and use no snapshot.
for boot in lean classic; do
	run "CAPTURE_GUEST_BOOT=$boot" "$TMP/$boot" CAPTURE_GUEST_BOOT=$boot
	says_not "$boot: no snapshot" "$TMP/$boot.err" 'snapshot'
	says "$boot: the manifest says $boot" "$TMP/$boot/MANIFEST.json" "\"guest_boot\": \"$boot\""
	same_bytes "$boot: windows = spin_2thread.ndjson" \
		"$TMP/$boot/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
done
expect_exit 2 "CAPTURE_GUEST_BOOT=bogus is a usage error" \
	'CAPTURE_GUEST_BOOT must be snapshot, lean or classic' \
	env CAPTURE_CACHE="$c" CAPTURE_GUEST_BOOT=bogus "$CAPTURE" spin --scenario contention \
	-o "$TMP/bogus"
nothing_left "CAPTURE_GUEST_BOOT=bogus: no output" "$TMP/bogus"
