#!/bin/bash
# etcd-entries on every etcd corpus made from the tree (docs/etcd.md, "The
# log as entries"): the published scenarios and the explored corpus
# docs/disagreements.md uses.  Each folds byte-identically twice, drops to
# the etcd corpus's own windows byte for byte, and passes raft-entries.js
# on every scored window but the ones docs/disagreements.md lists as an
# untraced receipt (a window that took in a later term upstream's trace
# never shows arriving).  A live cluster's corpus is left out: it repeats
# each log whole in every window (350 MB for 8 s, about 12 minutes to
# fold), so it is measured by hand (docs/results/etcd.md).
# needs: root btf go goproxy node python3
# locks: etcd
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
here=$(cd "$(dirname "$0")" && pwd)

# check_corpus NAME CAPTURE-ARGS...: capture $TMP/NAME, then its raw
# traces as etcd-entries.
check_corpus() {
	local name=$1 c=$TMP/$1; shift
	noted "$CAPTURE" "$@" -o "$c" >/dev/null || { not_ok "corpus $name" "$(why)"; return; }
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
	got = sorted(f"{os.path.relpath(f['file'], root)}:{f['line']}"
	             for f in json.load(open(card))["failures"])
	# The page's untraced-receipt rows: windows no raft grader can pass.
	want = sorted(m.replace(f"{name}/etcd/", "etcd-entries/") for m in re.findall(
	    r"^\| untraced-receipt \| `([^`]*)`", open(page).read(), re.M)
	    if m.startswith(f"{name}/"))
	print(f"{len(got)} failed, the page's {len(want)}")
	sys.exit(got != want)
	PY
		ok "$name: raft-entries.js passes every scored window but the page's untraced receipts ($(cat "$TMP/fails"))" ||
		not_ok "$name: raft-entries.js passes every scored window but the page's untraced receipts" \
			"$(tail -n 3 "$TMP/fails") $(tail -n 2 "$TMP/err")"
	rm -rf "$c.e2"
}
cd "$ROOT"
check_corpus published etcd --scenario all --via trace
check_corpus explored etcd --explore --seed 1 --budget 200 --via trace
