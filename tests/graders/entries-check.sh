# Sourced by test-disagreements.sh, which makes the corpora (one capture
# of the explored corpus serves both checks): etcd-entries on them
# (docs/etcd.md, "The log as entries").  Each folds byte-identically
# twice, drops to the corpus's own etcd windows byte for byte, and passes
# raft-entries.js on every scored window but the ones docs/disagreements.md
# lists as an untraced receipt (a window that took in a later term whose
# arrival upstream's trace never shows).  Also sourced by
# tests/etcd-cluster/test-etcd-cluster.sh, on the start of its live
# stream: a live cluster's whole corpus repeats each log in every window
# (350 MB for 8 s, about 12 minutes to fold), measured by hand (docs/etcd.md).

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
	"$CAPTURE" grade --json --exec "node $here/raft-entries.js" "$c.e1" \
		>"$TMP/$name.card" 2>"$TMP/err"
	python3 - "$TMP/$name.card" "$c.e1" "$name" "$ROOT/docs/disagreements.md" \
		>"$TMP/fails" 2>&1 <<-'PY' &&
	import json, os, re, sys
	card, root, name, page = sys.argv[1:]
	failures = {f"{os.path.relpath(f['file'], root)}:{f['line']}": f
	            for f in json.load(open(card))["failures"]}
	# The page's untraced-receipt rows: windows no raft grader can pass.
	want = sorted(m.replace(f"{name}/etcd/", "etcd-entries/") for m in re.findall(
	    r"^\| untraced-receipt \| `([^`]*)`", open(page).read(), re.M)
	    if m.startswith(f"{name}/"))
	print(f"{len(failures)} failed, the page's {len(want)}")
	for w, f in sorted(failures.items()):
	    if w not in want:
	        print(f"{w}: {f['action']}: {f['why']}")
	for w in want:
	    if w not in failures:
	        print(f"{w}: on the page, but passed")
	sys.exit(sorted(failures) != want)
	PY
		ok "$name: raft-entries.js passes every scored window but the page's untraced receipts ($(cat "$TMP/fails"))" ||
		{ rm -rf "$keep" && mkdir -p "$keep" && cp -r "$c/." "$keep/" &&
		  cp -r "$c.e1/etcd-entries" "$keep/"
		  not_ok "$name: raft-entries.js passes every scored window but the page's untraced receipts" \
			"$(head -n 11 "$TMP/fails"; tail -n 2 "$TMP/err")
the corpus and its etcd-entries windows (files above) kept in $keep/"; }
	rm -rf "$c.e2"
}
