#!/usr/bin/env bash
# A guest starved of CPU by the host is not a hung guest: its silence is
# measured on the time the host gave it (qemu/attempt.c, guest_clock).  A
# stand-in QEMU runs the real one at SCHED_IDLE on one CPU beside busy
# loops at normal priority for longer than CAPTURE_GUEST_STALL, so the guest
# gets almost no CPU for that while, in waits of seconds: a wall-clock watch
# calls it hung, and so does one that counts only the waits that ended.
# needs: qemu reference
# locks: guest
source "$(dirname "$0")/../lib.sh"

ref=$REF/sysmobench-corpora/spin
unset CAPTURE_ACCEL
# Fill the cache first (kernel, module, initramfs, snapshot): the starved
# run is then one restore, as the quick start's second run is.
check "fill the cache" "$CAPTURE" spin --scenario contention -o "$TMP/fill"

starve=$TMP/starved-qemu
cpus=$(( $(nproc) - 1 ))
cat >"$starve" <<STARVE
#!/bin/sh
# Two busy loops hold CPU 0 for 8 s from QEMU's start; QEMU runs on CPU 0
# at SCHED_IDLE, which runs only when nothing else wants that CPU: its
# waits for a CPU last seconds.  After 8 s it runs as any process.
for i in 1 2; do timeout 8 taskset -c 0 sh -c 'while :; do :; done' & done
(sleep 8; chrt -a -o -p 0 \$\$; taskset -a -c -p 0-$cpus \$\$) >/dev/null 2>&1 &
exec taskset -c 0 chrt -i 0 $(command -v qemu-system-x86_64) "\$@"
STARVE
chmod +x "$starve"

if env CAPTURE_QEMU="$starve" CAPTURE_ACCEL=tcg CAPTURE_GUEST_STALL=3 \
	"$CAPTURE" spin --scenario contention -o "$TMP/starved" 2>"$TMP/starved.err"; then
	ok "a starved guest is not hung: the capture succeeds"
else
	not_ok "a starved guest is not hung: the capture succeeds" "$(tail -n 4 "$TMP/starved.err")"
fi
grep -q 'hung' "$TMP/starved.err" &&
	not_ok "a starved guest: no attempt called hung" "$(grep hung "$TMP/starved.err")" ||
	ok "a starved guest: no attempt called hung"
same_bytes "a starved guest: the windows of the unstarved run" \
	"$TMP/fill/spin/01-contention.ndjson" "$TMP/starved/spin/01-contention.ndjson"
