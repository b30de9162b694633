#!/usr/bin/env bash
# COM1 logs in the shape Asterinas's `cargo osdk test` leaves (boot noise,
# ktest runner lines, the events amid them; long4's seq wraps at 100) fold
# with the spin folder to the reference windows: the same the Linux guest
# gives for the same scenario.  How the fixtures were made: README.md here.
# needs: reference
source "$(dirname "$0")/../lib.sh"
here=$TESTS_DIR/spin/asterinas
spin_ref=$REF/sysmobench-corpora/spin

fold() { "$CAPTURE" fold spin "$@"; }

grep -A1 '"seq":99,' "$here/com1-long4.log" | tail -n 1 >"$TMP/after99"
check "seq wraps at 100 in the long4 log" grep -q '^{"seq":0,' "$TMP/after99"

cp "$here/com1-contention.log" "$TMP/contention.log"
cp "$here/com1-long4.log" "$TMP/long4.log"
check "the Asterinas COM1 logs fold" fold -o "$TMP/c" "$TMP/contention.log" "$TMP/long4.log"
same_bytes "contention folds to the reference windows (spin_2thread)" \
	"$TMP/c/spin/contention.ndjson" "$spin_ref/spin_2thread.ndjson"
cat "$spin_ref/spin_seq.ndjson" "$spin_ref/spin_seq.ndjson" \
	"$spin_ref/spin_seq.ndjson" "$spin_ref/spin_seq.ndjson" >"$TMP/seq4.ndjson"
same_bytes "long four times folds to the reference windows (spin_seq x4)" \
	"$TMP/c/spin/long4.ndjson" "$TMP/seq4.ndjson"

# The folder must notice what a broken capture looks like.
grep -v '"seq":57,' "$here/com1-long4.log" >"$TMP/lost.log"
line=$(grep -n '"seq":58,' "$TMP/lost.log" | head -n 1 | cut -d: -f1)
expect_exit 6 "a lost event is found at its line" "lost.log:$line:" \
	fold -o "$TMP/lost" "$TMP/lost.log"
sed '/^CAPTURE END/,$d' "$here/com1-contention.log" >"$TMP/cut.log"
expect_exit 6 "a run cut before CAPTURE END is refused" 'CAPTURE END' \
	fold -o "$TMP/cut" "$TMP/cut.log"
check "nothing is written for a refused run" test ! -e "$TMP/cut"
