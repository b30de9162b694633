# The domain set (capture spin --scenario domain --cpus 2), recorded from
# real guests (tests/spin/domain/: the trace and JSON channels of each
# scenario): every cell of the reference audit domain observed, two as
# self-deadlocks never completing; every reachable cell of the extended
# projection (spin-spinning) observed; that projection is the reference
# one plus who spins, and refuses a lock() on a held lock without the
# kernel's evidence that it spun.
# needs: python3
source "$(dirname "$0")/../lib.sh"
here=$(dirname "$0")/domain

# fold SYSTEM NAME FILES...: fold into $TMP/NAME.
fold() {
	local sys=$1 name=$2; shift 2
	"$CAPTURE" fold "$sys" "$@" -o "$TMP/$name" >/dev/null 2>"$TMP/$name.err"
}

checks=$(dirname "$0")/domain-checks.py
if fold spin ref "$here"/*.ftrace; then
	"$CAPTURE" audit --json "$TMP/ref" >"$TMP/ref.json"
	check "reference domain: 18/18 observed, 2 of them never completing" \
		python3 "$checks" coverage spin "$TMP/ref.json"
	"$CAPTURE" audit "$TMP/ref" | grep -q '^coverage: 18/18 reachable observed (16 covered by windows, 2 only never completing; 18 cells, 0 impossible)$' &&
		ok "reference domain: the text table says 18/18" ||
		not_ok "reference domain: the text table says 18/18" "$("$CAPTURE" audit "$TMP/ref" | grep coverage)"
else
	not_ok "the domain traces fold" "$(tail -n 2 "$TMP/ref.err")"
fi

# The kernel's evidence, per run: a slow path entered and left where a
# lock() waited for the other actor, entered and never left by the
# holder's own lock() that ended the run.
check "the kretprobe's evidence: the slow path exactly where lock()s spun" \
	python3 "$checks" evidence "$TMP/ref/MANIFEST.json"

# The self-deadlock: the holder's lock() is the run's last event, still in
# the slow path; no window, a call never completing in the manifest.
tail -n 2 "$TMP/ref/events/02-held-by-0.ndjson" | head -n 1 | grep -q '"action":"AcquireSuccess","actor":0' &&
	tail -n 1 "$TMP/ref/events/02-held-by-0.ndjson" | grep -q '"state":"locked","action":"TryAcquireBlocking","actor":0' &&
	grep -q '"never_completing": \[' "$TMP/ref/MANIFEST.json" &&
	ok "self-deadlock: the holder's lock() ends the run, never completing" ||
	not_ok "self-deadlock: the holder's lock() ends the run, never completing" "$(tail -n 2 "$TMP/ref/events/02-held-by-0.ndjson")"

# A release by the actor that does not hold the lock, and of a free lock.
grep -qF '{"action": "ReleaseLock", "data": {"thread": 1}, "pre_state": {"lockHeld": true, "lockHolder": 0}, "post_state": {"lockHeld": false, "lockHolder": null}}' \
	"$TMP/ref/spin/02-held-by-0.ndjson" &&
	grep -qF '{"action": "ReleaseLock", "data": {"thread": 0}, "pre_state": {"lockHeld": false, "lockHolder": null}, "post_state": {"lockHeld": false, "lockHolder": null}}' \
	"$TMP/ref/spin/01-free.ndjson" &&
	ok "releases by the non-holder and of a free lock leave it free" ||
	not_ok "releases by the non-holder and of a free lock leave it free" "windows missing"

# The extended projection: every cell observed or declared impossible.
if fold spin-spinning ext "$here"/*.ftrace; then
	"$CAPTURE" audit --json "$TMP/ext" >"$TMP/ext.json"
	check "extended domain: 24/24 reachable observed, 48 impossible with reasons" \
		python3 "$checks" coverage spin-spinning "$TMP/ext.json"
	# The waiter: its lock() starts spinning on the lock 0 holds.
	sed -n 2p "$TMP/ext/spin-spinning/03-held-by-0-spinning-1.ndjson" |
		grep -qF '{"action": "AcquireLock", "data": {"thread": 1, "callType": "lock"}, "pre_state": {"lockHeld": true, "lockHolder": 0, "spinning": []}, "post_state": {"lockHeld": true, "lockHolder": 0, "spinning": [1]}}' &&
		ok "extended: the lock() that starts spinning, held by the other actor" ||
		not_ok "extended: the lock() that starts spinning, held by the other actor" \
			"$(sed -n 2p "$TMP/ext/spin-spinning/03-held-by-0-spinning-1.ndjson")"
	python3 - "$TMP/ref/spin" "$TMP/ext/spin-spinning" >"$TMP/proj.out" 2>&1 <<'PY'
import json, os, sys
for name in sorted(os.listdir(sys.argv[1])):
    ref = [json.loads(l) for l in open(os.path.join(sys.argv[1], name))]
    ext = [json.loads(l) for l in open(os.path.join(sys.argv[2], name))]
    for w in ext:
        del w["pre_state"]["spinning"], w["post_state"]["spinning"]
    assert ref == ext, name
PY
	[ $? = 0 ] && ok "extended windows less who spins are the reference windows" ||
		not_ok "extended windows less who spins are the reference windows" "$(tail -n 2 "$TMP/proj.out")"
	# spinning is a set in the ITF form, and comes back as the same array
	itf=$TMP/itf/spin-spinning/03-held-by-0-spinning-1.itf.json
	if noted "$CAPTURE" fold spin-spinning --form itf "$here/03-held-by-0-spinning-1.ftrace" \
		-o "$TMP/itf" >/dev/null &&
		noted "$CAPTURE" convert --system spin-spinning "$itf" "$TMP/back.ndjson"; then
		check "extended: spinning is a set in the ITF form" \
			grep -q '"spinning": {"#set": \[{"#bigint": "1"}\]}' "$itf"
		same_bytes "extended: ITF (spinning a set) converts back byte for byte" \
			"$TMP/back.ndjson" "$TMP/ext/spin-spinning/03-held-by-0-spinning-1.ndjson"
	else
		not_ok "extended: ITF (spinning a set) converts back byte for byte" "$(why)"
	fi
else
	not_ok "the domain traces fold as spin-spinning" "$(tail -n 2 "$TMP/ext.err")"
fi

# Without the kernel's evidence (the JSON channel has no StopSpinning),
# the extended projection refuses the waiter's lock(); the reference one
# folds it (it needs no evidence).
rm -rf "$TMP/bad"
expect_exit 4 "extended: a lock() on a held lock without the kprobe evidence" \
	'03-held-by-0-spinning-1.json.log:8: AcquireSuccess: the lock\(\) of actor 1 began on a held lock, but no StopSpinning' \
	"$CAPTURE" fold spin-spinning "$here/03-held-by-0-spinning-1.json.log" -o "$TMP/bad"
nothing_left "extended without evidence: nothing written" "$TMP/bad"
expect_exit 0 "reference: the JSON channel alone folds" '' \
	"$CAPTURE" fold spin "$here/03-held-by-0-spinning-1.json.log" -o "$TMP/json"
# A window file of either projection names its system in its manifest;
# without one, the action names say spin, never spin-spinning.
expect_exit 0 "a window file alone audits as spin" '^audit of spin:' \
	sh -c "'$CAPTURE' audit '$TMP/ref/spin/01-free.ndjson' >&2"
expect_exit 0 "spin-spinning windows audit with --system" '^audit of spin-spinning:' \
	sh -c "'$CAPTURE' audit --system spin-spinning '$TMP/ext/spin-spinning/01-free.ndjson' >&2"
