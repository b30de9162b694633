#!/usr/bin/env bash
# The files of scenarios/, bpf/, qemu/, jvm/ and the core (capture/'s
# own) include each other as a DAG (docs/architecture.md): a module is a
# .c with its .h, an arrow goes from a module to each header of another
# that it includes; no arrow may come back round (tests/layers/layers.py
# include-circles).  A planted circle is found.
# needs: python3
source "$(dirname "$0")/../lib.sh"

# circles DIR: each circle of modules under DIR, one a line; none: nothing.
circles() { python3 "$TESTS_DIR/layers/layers.py" include-circles "$1"; }

for room in scenarios bpf qemu jvm; do
	out=$(circles "$ROOT/$room")
	[ -z "$out" ] && ok "$room/ includes form a DAG" || not_ok "$room/ includes form a DAG" "$out"
done
out=$(python3 "$TESTS_DIR/layers/layers.py" include-circles --top "$ROOT/capture")
[ -z "$out" ] && ok "the core's includes (capture/'s own files) form a DAG" ||
	not_ok "the core's includes (capture/'s own files) form a DAG" "$out"

mkdir -p "$TMP/plant/bpf"
printf '#include "b.h"\n' >"$TMP/plant/bpf/a.c"
printf '#include "a.h"\n' >"$TMP/plant/bpf/b.c"
touch "$TMP/plant/bpf/a.h" "$TMP/plant/bpf/b.h"
[ "$(circles "$TMP/plant" | wc -l)" = 1 ] && ok "a planted circle of two modules is found" ||
	not_ok "a planted circle of two modules is found" "$(circles "$TMP/plant")"
