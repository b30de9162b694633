# capture convert: between event and stream form and the JSON styles, with
# the writer fold uses -- round trips are byte-identical, and convert agrees
# with fold byte for byte.
# needs: reference
source "$(dirname "$0")/../lib.sh"
ref=$REF/sysmobench-corpora
log=$ROOT/tests/spin/contention.log

for f in "$ref"/spin/*.ndjson; do
	n=$(basename "$f" .ndjson)
	noted "$CAPTURE" convert --form stream "$f" "$TMP/$n.stream" &&
		noted "$CAPTURE" convert --form event "$TMP/$n.stream" "$TMP/$n.event" &&
		same_bytes "round trip event -> stream -> event: $n" "$f" "$TMP/$n.event" ||
		not_ok "round trip event -> stream -> event: $n" "$(why)"
done
for f in "$ref"/locksvc/locksvc_run01.ndjson "$ref"/etcd/etcd_run04.ndjson; do
	n=$(basename "$f" .ndjson)
	noted "$CAPTURE" convert "$f" "$TMP/$n.event" &&
		noted "$CAPTURE" convert --form stream "$TMP/$n.event" "$TMP/$n.stream" &&
		same_bytes "round trip stream -> event -> stream: $n" "$f" "$TMP/$n.stream" ||
		not_ok "round trip stream -> event -> stream: $n" "$(why)"
done

# convert and fold agree in every form and style.
"$CAPTURE" fold spin "$log" -o "$TMP/event" >/dev/null
for form in event stream; do
	for style in python compact canonical; do
		noted "$CAPTURE" fold spin "$log" --form $form --json $style -o "$TMP/fold" >/dev/null &&
			noted "$CAPTURE" convert --force --form $form --json $style \
				"$TMP/event/spin/contention.ndjson" "$TMP/conv.ndjson" &&
			same_bytes "convert = fold: $form form, $style JSON" \
				"$TMP/fold/spin/contention.ndjson" "$TMP/conv.ndjson" ||
			not_ok "convert = fold: $form form, $style JSON" "$(why)"
	done
done
"$CAPTURE" convert --json canonical "$ref/spin/spin_seq.ndjson" - | head -n 1 >"$TMP/canon"
grep -qx '{"action":"AcquireLock","data":{"callType":"lock","thread":0},"post_state":{"lockHeld":true,"lockHolder":0},"pre_state":{"lockHeld":false,"lockHolder":null}}' "$TMP/canon" &&
	ok "canonical JSON sorts keys, no whitespace" || not_ok "canonical JSON" "$(cat "$TMP/canon")"

# Windows that do not chain are refused in either form: the writer takes
# each pre_state from the last post_state (event form used to be rewritten
# so, silently; found by tests/fuzz/fuzz-window-read).
sed '3s/"pre_state": {"lockHeld": true, "lockHolder": 0}/"pre_state": {"lockHeld": true, "lockHolder": 1}/' \
	"$ref/spin/spin_seq.ndjson" >"$TMP/unchained.ndjson"
expect_exit 3 "unchained event form refused" 'unchained.ndjson:3: pre_state is not the previous' \
	"$CAPTURE" convert --form stream "$TMP/unchained.ndjson" "$TMP/out.ndjson"
expect_exit 3 "unchained event form refused as event form" \
	'unchained.ndjson:3: pre_state is not the previous' \
	"$CAPTURE" convert --form event "$TMP/unchained.ndjson" "$TMP/out.ndjson"
[ ! -e "$TMP/out.ndjson" ] && ! ls "$TMP" | grep -q 'out.ndjson.tmp' &&
	ok "nothing written on failure" || not_ok "nothing written on failure" "$(ls "$TMP")"
# A key twice in one state: cJSON compares only the first, so the second
# value used to pass the chain check into the next window (found by
# tests/fuzz/fuzz-window-read).
sed '1s/"pre_state": {"lockHeld": false,/"pre_state": {"lockHeld": false, "lockHeld": true,/' \
	"$ref/spin/spin_seq.ndjson" >"$TMP/twice.ndjson"
for form in event stream; do
	expect_exit 3 "a key twice in a window's state, to $form form" \
		'twice.ndjson:1: the key "lockHeld" appears twice in one object' \
		"$CAPTURE" convert --form $form "$TMP/twice.ndjson" "$TMP/twice.out"
done
expect_exit 3 "a key twice: audit refuses it too" 'twice.ndjson:1: the key "lockHeld"' \
	"$CAPTURE" audit "$TMP/twice.ndjson"
[ ! -e "$TMP/twice.out" ] && ok "a key twice: nothing written" ||
	not_ok "a key twice: nothing written" "$(ls "$TMP")"
expect_exit 2 "unknown form" "--form" "$CAPTURE" convert --form nosuch "$log" "$TMP/x"
expect_exit 3 "not a window file" 'contention.log:1:' "$CAPTURE" convert "$log" "$TMP/x"

# A window file without windows is refused in both forms (it was exit 0 to
# event form, 3 to stream form), and OUT is not written.
: >"$TMP/nowin.ndjson"
for form in event stream; do
	expect_exit 3 "an empty window file to $form form" 'nowin.ndjson: no windows' \
		"$CAPTURE" convert --form $form "$TMP/nowin.ndjson" "$TMP/nowin.out"
done
[ ! -e "$TMP/nowin.out" ] && ok "an empty window file: nothing written" ||
	not_ok "an empty window file: nothing written" "$(ls "$TMP")"
