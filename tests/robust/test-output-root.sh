# Output paths only root can make: a device node as the output is refused
# like a FIFO (test-output.sh), and a full disk (a small tmpfs) is a write
# error naming the file, with nothing left.
# needs: root reference
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/robust/not-replaced.sh"
log=$ROOT/tests/spin/contention.log

"$CAPTURE" fold spin "$log" -o "$TMP/c" >/dev/null
if mknod "$TMP/null" c 1 3 2>"$TMP/.mknod"; then
	not_replaced "$TMP/null" "a character device" "$TMP/c/spin/contention.ndjson"
else
	not_ok "an output that is a device node" "cannot mknod: $(cat "$TMP/.mknod")"
fi

# The bytes are written on a thread of their own: the error comes back at close.
full=$TMP/full
mkdir -p "$full"
if mount -t tmpfs -o size=256k tmpfs "$full" 2>"$TMP/.mount"; then
	expect_exit 6 "a full disk is a write error naming the file" \
		'write error on events/.*: No space left on device' \
		"$CAPTURE" fold locksvc "$REF"/pgo-traces/locksvc/* -o "$full/out"
	nothing_left "a full disk leaves nothing" "$full/out"
	umount "$full"
else
	not_ok "a full disk is a write error naming the file" \
		"cannot mount a 256 KB tmpfs: $(cat "$TMP/.mount")"
fi
