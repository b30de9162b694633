# SIGKILL of a spin capture while it saves its guest snapshot (real QEMU):
# it leaves KEY.vm.tmp-PID in the cache and its QMP directory
# in $TMPDIR (no longer /tmp whatever TMPDIR says); the next capture
# removes both, saying so, saves the snapshot and its corpus is whole.  A
# private cache (the big builds shared) so that a snapshot is saved, and a
# private $TMPDIR so that what is left there is seen.  It fills the
# shared cache and boots a guest: a guest script's lock.
# needs: root qemu
# locks: guest
source "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
cache=${CAPTURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capture}
# Fill the real cache first (kernel, module, initramfs, the KVM verdict).
check "fill the cache" "$CAPTURE" spin --scenario contention -o "$TMP/fill"
c=$TMP/cache
mkdir -p "$c"
for d in kernel modules initramfs helpers accel; do ln -s "$cache/$d" "$c/$d"; done
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"

env CAPTURE_CACHE="$c" "$CAPTURE" spin --scenario contention -o "$TMP/k" >/dev/null 2>"$TMP/k.err" &
pid=$!
for ((i = 0; i < 12000; i++)); do
	compgen -G "$c/snapshot/*.vm.tmp-$pid" >/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.005
done
if compgen -G "$c/snapshot/*.vm.tmp-$pid" >/dev/null; then
	kill -KILL "$pid"
	wait "$pid"
	ok "spin killed while it saves its snapshot"
	compgen -G "$TMPDIR/capture-qmp.tmp-$pid-??????" >/dev/null &&
		ok "it left its QMP directory in \$TMPDIR, named for it" ||
		not_ok "it left its QMP directory in \$TMPDIR, named for it" "$(ls -a "$TMPDIR")"
	[ ! -e "$TMP/k" ] && ok "no corpus" || not_ok "no corpus" "$(ls "$TMP/k")"
	# Its QEMU died with it (PDEATHSIG); a zombie a moment, then gone.
	expect_exit 0 "the next capture cleans up and saves the snapshot" \
		"removing $c/snapshot/.*\\.vm\\.tmp-$pid, left by process $pid, which is gone" \
		env CAPTURE_CACHE="$c" "$CAPTURE" spin --scenario contention -o "$TMP/k"
	grep -Eq "removing $TMPDIR/capture-qmp.tmp-$pid-.{6}, left by process $pid" "$TMP/.stderr" &&
		ok "and its QMP directory" || not_ok "and its QMP directory" "$(grep removing "$TMP/.stderr")"
	! compgen -G "$c/snapshot/*.tmp-*" >/dev/null && ok "no temporary left in the cache" ||
		not_ok "no temporary left in the cache" "$(ls -a "$c/snapshot")"
	# A save may fail on a loaded machine (QMP's answer late): the
	# capture then boots in full and says so, which is no leftover.
	compgen -G "$c/snapshot/*.vm" >/dev/null || grep -q 'could not save a snapshot' "$TMP/.stderr" &&
		ok "the snapshot saved (or its failure said)" ||
		not_ok "the snapshot saved (or its failure said)" "$(ls -a "$c/snapshot"; tail -n 3 "$TMP/.stderr")"
	[ -z "$(ls -A "$TMPDIR")" ] && ok "nothing left in \$TMPDIR" || not_ok "nothing left in \$TMPDIR" "$(ls -a "$TMPDIR")"
	same_bytes "its corpus: the windows of a whole capture" \
		"$TMP/k/spin/01-contention.ndjson" "$TMP/fill/spin/01-contention.ndjson"
else
	wait "$pid"
	not_ok "SIGKILL of spin saving its snapshot" "never saw it save: $(tail -n 2 "$TMP/k.err")"
fi
