# Sourced by test-disagreements.sh, which makes the corpora (one capture
# of the explored corpus serves both checks): etcd-entries on them
# (docs/etcd-entries.md).  Each folds byte-identically
# twice, drops to the corpus's own etcd windows byte for byte, and passes
# raft-entries.js on every scored window (a later term no message of a
# window brings has a window of its own: folders/raft/raft.c,
# untraced_rise).  Also sourced by
# tests/etcd/test-live.sh, on the start of its live
# stream: a live cluster's whole corpus repeats each log in every window
# (350 MB for 8 s, about 12 minutes to fold), measured by hand (docs/results/etcd.md).

# check_entries NAME KEEP: $TMP/NAME's raw traces as etcd-entries.  A
# failed grade names each window it disagrees on (file:line, action, the
# grader's why) and keeps the corpus and its entries windows in KEEP/NAME/.
check_entries() {
	local name=$1 keep=$2/$1 c=$TMP/$1
	rm -rf "$keep"
	[ -d "$c/raw" ] || { not_ok "$name: etcd-entries" "no corpus $c"; return; }
	for k in 1 2; do
		"$CAPTURE" fold etcd-entries "$c"/raw/*.ndjson -o "$c.e$k" >/dev/null 2>"$TMP/err" ||
			not_ok "$name: etcd-entries folds" "$(tail -n 2 "$TMP/err")"
	done
	diff -r "$c.e1" "$c.e2" >"$TMP/diff" && ok "$name: folding twice is byte-identical" ||
		not_ok "$name: folding twice is byte-identical" "$(head -n 3 "$TMP/diff")"
	python3 "$here/entries-drop.py" "$c.e1/etcd-entries" "$c/etcd" >"$TMP/drop" 2>&1 &&
		ok "$name: without the terms, the corpus's etcd windows ($(cat "$TMP/drop"))" ||
		not_ok "$name: without the terms, the corpus's etcd windows" "$(tail -n 2 "$TMP/drop")"
	if "$CAPTURE" grade --json --exec "node $here/raft-entries.js" "$c.e1" \
		>"$TMP/$name.card" 2>"$TMP/err"; then
		ok "$name: raft-entries.js passes every scored window"
	else
		rm -rf "$keep" && mkdir -p "$keep" && cp -r "$c/." "$keep/" &&
			cp -r "$c.e1/etcd-entries" "$keep/"
		not_ok "$name: raft-entries.js passes every scored window" \
			"$(python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["failures"][:10]:
    print("%s:%s: %s: %s" % (f["file"], f["line"], f["action"], f["why"]))' "$TMP/$name.card"; tail -n 2 "$TMP/err")
the corpus and its etcd-entries windows (files above) kept in $keep/"
	fi
	rm -rf "$c.e2"
}
