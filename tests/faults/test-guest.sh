# A live spin guest that stops printing midway (real QEMU): the module
# reports half its events and no END marker, then ends, or hangs.  Both are
# lost events, exit 6, and leave nothing.  CAPTURE_GUEST_TIMEOUT is small
# so that the hung guest is given up quickly.
# needs: qemu
# locks: guest
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

expect_exit 6 "a guest that stops printing midway: exit 6, truncated" \
	'the event channel stops after 6 events without CAPTURE END' \
	env CAPTURE_GUEST_STOP=midway "$CAPTURE" spin --scenario contention -o "$TMP/midway"
nothing_left "a guest that stops printing midway: nothing left" "$TMP/midway"
expect_exit 6 "a guest that hangs midway: exit 6 after the timeout" 'the guest hung: no exit within 8 s' \
	env CAPTURE_GUEST_STOP=midway-hang CAPTURE_GUEST_TIMEOUT=8 \
	"$CAPTURE" spin --scenario contention -o "$TMP/midhang"
nothing_left "a guest that hangs midway: nothing left" "$TMP/midhang"
pgrep -f -- "qemu-system.*$TMP/midhang" >/dev/null &&
	not_ok "a guest that hangs midway: its QEMU is gone" "$(pgrep -af -- "qemu-system.*$TMP/midhang")" ||
	ok "a guest that hangs midway: its QEMU is gone"
expect_exit 2 "an unknown CAPTURE_GUEST_STOP" 'CAPTURE_GUEST_STOP must be' \
	env CAPTURE_GUEST_STOP=sideways "$CAPTURE" spin --scenario contention -o "$TMP/x"
