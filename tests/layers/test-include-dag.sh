#!/usr/bin/env bash
# The files of scenarios/ include each other as a DAG (docs/architecture.md):
# a module is a .c with its .h, an arrow goes from a module to each header
# of another that it includes; no arrow may come back round.  A planted
# circle is found.
# needs: python3
source "$(dirname "$0")/../lib.sh"

# circles DIR: each circle of modules under DIR, one a line; none: nothing.
circles() {
	python3 - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
graph = {}
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(('.c', '.h')):
            continue
        mod = os.path.join(d, f)[:-2]
        for inc in re.findall(r'^#include "([^"]+)\.h"', open(os.path.join(d, f)).read(), re.M):
            to = os.path.normpath(os.path.join(d, inc))
            if to != mod and os.path.exists(to + '.h'):
                graph.setdefault(mod, set()).add(to)
state = {}
def walk(u, path):
    state[u] = 1
    for v in sorted(graph.get(u, ())):
        if state.get(v) == 1:
            print(' -> '.join(os.path.relpath(p, root) for p in path[path.index(v):] + [v]))
        elif not state.get(v):
            walk(v, path + [v])
    state[u] = 2
for u in sorted(graph):
    if not state.get(u):
        walk(u, [u])
PY
}

out=$(circles "$ROOT/scenarios")
[ -z "$out" ] && ok "scenarios/ includes form a DAG" ||
	not_ok "scenarios/ includes form a DAG" "$out"

mkdir -p "$TMP/plant/x"
printf '#include "b.h"\n' >"$TMP/plant/x/a.c"
printf '#include "a.h"\n' >"$TMP/plant/x/b.c"
touch "$TMP/plant/x/a.h" "$TMP/plant/x/b.h"
[ "$(circles "$TMP/plant" | wc -l)" = 1 ] && ok "a planted circle of two modules is found" ||
	not_ok "a planted circle of two modules is found" "$(circles "$TMP/plant")"
