#!/usr/bin/env bash
# Checks that need an Asterinas v0.16.0 checkout, which CI does not have:
#
#	ASTERINAS_SRC=DIR tests/spin/asterinas/check-source.sh
#
# 1. the patch applies to the clean checkout (git apply --check);
# 2. the generated tests for contention and long, compiled with the patched
#    lock code on the host (host-run.sh), print events that fold to the
#    reference windows.
# Not a test-*.sh: make test would fail without the checkout.
source "$(dirname "$0")/../../lib.sh"
here=$TESTS_DIR/spin/asterinas
patch=$ROOT/patches/asterinas-v0.16.0/capture-trace.patch
spin_ref=$REF/sysmobench-corpora/spin

if [ -z "${ASTERINAS_SRC:-}" ]; then
	not_ok "Asterinas checkout" "set ASTERINAS_SRC to a v0.16.0 checkout"
	exit 1
fi
check "the checkout is at v0.16.0" \
	test "$(git -C "$ASTERINAS_SRC" rev-parse HEAD)" = \
	"$(git -C "$ASTERINAS_SRC" rev-parse 'v0.16.0^{commit}')"
check "git apply --check of the patch" git -C "$ASTERINAS_SRC" apply --check "$patch"

for run in contention:spin_2thread long:spin_seq; do
	name=${run%%:*}
	if CAPTURE=$CAPTURE "$here/host-run.sh" "$name" >"$TMP/$name.log" 2>"$TMP/err"; then
		ok "host run of $name"
	else
		not_ok "host run of $name" "$(tail -n 3 "$TMP/err")"
	fi
	check "$name folds" "$CAPTURE" fold spin -o "$TMP/$name" "$TMP/$name.log"
	same_bytes "$name gives the reference windows" \
		"$TMP/$name/spin/$name.ndjson" "$spin_ref/${run#*:}.ndjson"
done
