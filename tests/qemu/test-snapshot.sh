#!/usr/bin/env bash
# Guest snapshots (docs/qemu.md, "The snapshot"): the first capture
# saves one and restores it, later ones only restore; a snapshot that does
# not restore (corrupt, or stale: another guest's under this one's key)
# falls back to a full boot, said on stderr, and the next capture saves a
# new one; a changed input (the guest's CPUs, the QEMU binary) is another
# key; CAPTURE_GUEST_BOOT=lean and classic boot in full; beside each
# snapshot its trace part (the formats the guest shipped before it was
# saved), which a restored run's trace channel continues; stale snapshots
# (the same slot, another key, unused for an hour) go when a new one is
# committed.  Real QEMU, a private cache that shares the real one's
# kernel, module and initramfs.
# needs: qemu reference
# locks: guest
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
# vm_of KEY: the snapshot file of KEY (SLOT-KEY.vm).
vm_of() { ls "$c/snapshot/"*-"$1".vm 2>/dev/null || echo "$c/snapshot/none-$1.vm"; }
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
vm=$(vm_of "$key")
[ -n "$key" ] && [ -s "$vm" ] &&
	ok "first capture: the manifest's key names the snapshot" ||
	not_ok "first capture: the manifest's key names the snapshot" "key '$key': $(ls "$c/snapshot")"

run "second capture" "$TMP/s2"
says_not "second capture: saves nothing" "$TMP/s2.err" 'save a snapshot|booting the'
same_corpus "first and second corpus identical" "$TMP/s1" "$TMP/s2"
run "boot-only from the snapshot" "$TMP/b1" -- --boot-only
says_not "boot-only: saves nothing" "$TMP/b1.err" 'save a snapshot|booting the'

# The trace part: the formats, shipped once, before the guest was saved;
# a restored run's channel is that, then its own pages.
part=${vm%.vm}.trace
head -c 14 "$part" | grep -q '^CAPTURE TRACE$' && grep -aq '^FILE events/capture_spin/spin_op/format ' "$part" &&
	! grep -aq '^FILE per_cpu/' "$part" &&
	ok "trace part: the header and formats, no ring-buffer page" ||
	not_ok "trace part: the header and formats, no ring-buffer page" "$(grep -a '^FILE' "$part")"
cmp -s -n "$(stat -c %s "$part")" "$part" "$TMP/s2/raw/01-contention.ftrace" &&
	grep -aq '^FILE per_cpu/cpu0/trace_pipe_raw ' "$TMP/s2/raw/01-contention.ftrace" &&
	ok "a restored run's trace channel: the trace part, then its pages" ||
	not_ok "a restored run's trace channel: the trace part, then its pages" \
		"$(grep -a '^FILE' "$TMP/s2/raw/01-contention.ftrace")"
env CAPTURE_CACHE="$c" "$CAPTURE" fold spin "$TMP/s2/raw/01-contention.ftrace" -o "$TMP/refold" \
	>/dev/null 2>"$TMP/refold.err" &&
	same_bytes "a restored run's trace channel folds again to its windows" \
		"$TMP/refold/spin/01-contention.ndjson" "$TMP/s2/spin/01-contention.ndjson" ||
	not_ok "a restored run's trace channel folds again to its windows" "$(tail -n 3 "$TMP/refold.err")"
# A snapshot without its trace part is not used: a new one is saved.
mv "$part" "$TMP/part"
run "no trace part: capture" "$TMP/p1"
says "no trace part: a new snapshot saved" "$TMP/p1.err" 'to save a snapshot of it'
[ -s "$part" ] && cmp -s "$part" "$TMP/part" && ok "no trace part: saved again, the same" ||
	not_ok "no trace part: saved again, the same" "$(ls -l "$c/snapshot")"
same_corpus "no trace part: the first corpus again" "$TMP/s1" "$TMP/p1"

# Stale snapshots: those of this slot under another key unused for an
# hour go when a new one is committed; one used within the hour, another
# slot's, and a restored one (its use refreshes its time) stay.
slot=$(basename "$vm" | cut -d- -f1)
for f in old:0000000000000001 fresh:0000000000000002; do
	cp "$vm" "$c/snapshot/$slot-${f#*:}.vm" && cp "$part" "$c/snapshot/$slot-${f#*:}.trace"
done
cp "$vm" "$c/snapshot/ffffffffffffffff-0000000000000003.vm"
touch -d '2 hours ago' "$c/snapshot/$slot-0000000000000001."* "$c/snapshot/ffffffffffffffff-"* "$vm"
run "stale: a restore" "$TMP/r1"
[ "$(find "$vm" -mmin -5)" = "$vm" ] && ok "stale: a restore marks its snapshot used" ||
	not_ok "stale: a restore marks its snapshot used" "$(ls -l --time-style=+%T "$vm")"
rm "$vm"
run "stale: a new snapshot committed" "$TMP/r2"
says "stale: a new snapshot committed: saved" "$TMP/r2.err" 'to save a snapshot of it'
[ ! -e "$c/snapshot/$slot-0000000000000001.vm" ] && [ ! -e "$c/snapshot/$slot-0000000000000001.trace" ] &&
	ok "stale: this slot's unused snapshot and its trace part removed" ||
	not_ok "stale: this slot's unused snapshot and its trace part removed" "$(ls "$c/snapshot")"
[ -e "$c/snapshot/$slot-0000000000000002.vm" ] && [ -e "$c/snapshot/ffffffffffffffff-0000000000000003.vm" ] &&
	[ -s "$vm" ] && ok "stale: one used within the hour, another slot's and the new one stay" ||
	not_ok "stale: one used within the hour, another slot's and the new one stay" "$(ls "$c/snapshot")"
rm -f "$c/snapshot/$slot-0000000000000002."* "$c/snapshot/ffffffffffffffff-"*

# Corrupt: the file cut to its first MB.
head -c 1048576 "$vm" >"$TMP/cut" && mv "$TMP/cut" "$vm"
run "corrupt snapshot: capture succeeds" "$TMP/x1"
says "corrupt snapshot: said on stderr" "$TMP/x1.err" 'its snapshot did not restore'
says "corrupt snapshot: booted in full" "$TMP/x1.err" 'booting the spin-contention guest'
same_bytes "corrupt snapshot: windows = spin_2thread.ndjson" \
	"$TMP/x1/spin/01-contention.ndjson" "$ref/spin_2thread.ndjson"
says "corrupt snapshot: the manifest says lean" "$TMP/x1/MANIFEST.json" '"guest_boot": "lean"'
[ ! -e "$vm" ] && [ ! -e "$part" ] && ok "corrupt snapshot: removed, its trace part too" ||
	not_ok "corrupt snapshot: removed, its trace part too" "$(ls -l "$c/snapshot")"
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
cp "$(vm_of "$key2")" "$vm"
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
