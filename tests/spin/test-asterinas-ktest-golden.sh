#!/usr/bin/env bash
# The generated Asterinas kernel tests, byte for byte (golden files
# ktest-NAME.rs; host-run.sh compiles and runs them against the patched
# v0.16.0 lock code where a checkout is at hand).
# needs:
source "$(dirname "$0")/../lib.sh"
here=$TESTS_DIR/spin/asterinas

for name in contention long; do
	if "$CAPTURE" spin --kernel asterinas --emit-ktest --scenario "$name" \
		>"$TMP/$name.rs" 2>"$TMP/err"; then
		same_bytes "ktest source for $name matches ktest-$name.rs" \
			"$TMP/$name.rs" "$here/ktest-$name.rs"
	else
		not_ok "ktest source for $name" "$(cat "$TMP/err")"
	fi
done

# A failed try is a real try_lock that returned None: never a skipped call.
grep -c 'lock.try_lock()' "$here/ktest-contention.rs" >"$TMP/n"
check "contention's three tries are try_lock calls" grep -qx 3 "$TMP/n"

# A scenario file from elsewhere (CAPTURE_HOME) is generated the same way.
mkdir -p "$TMP/home/scenarios/spin"
printf '1 try\n0 lock\n1 try\n0 release\n' >"$TMP/home/scenarios/spin/07-Odd-Name"
CAPTURE_HOME=$TMP/home "$CAPTURE" spin --kernel asterinas --emit-ktest \
	--scenario Odd-Name >"$TMP/odd.rs" 2>"$TMP/err" || true
check "a new scenario file gets its own test function" \
	grep -q '^fn capture_spin_odd_name() {$' "$TMP/odd.rs"
check "its steps are numbered in file order" \
	grep -q '// Step 4: 0 release' "$TMP/odd.rs"

expect_exit 2 "--emit-ktest needs --kernel asterinas" 'needs --kernel asterinas' \
	"$CAPTURE" spin --emit-ktest --scenario contention
expect_exit 2 "--emit-ktest prints one scenario" 'one scenario' \
	"$CAPTURE" spin --kernel asterinas --emit-ktest --scenario all
