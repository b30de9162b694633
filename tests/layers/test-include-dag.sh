#!/usr/bin/env bash
# The files of each room include each other as a DAG
# (docs/architecture.md): a module is a .c with its .h, an arrow goes from
# a module to each header of another of its room that it includes; no
# arrow may come back round (tests/layers/layers.py include-circles).  The
# rooms are layers.py's, read from the tree: a new system's room is
# checked as it comes.  Planted circles are found, each in its room.
# needs: python3
source "$(dirname "$0")/../lib.sh"
LAYERS="python3 $TESTS_DIR/layers/layers.py"

# dag NAME OUTPUT: no circle.
dag() { if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$2"; fi; }
# circles ROOM ROOT: each circle of ROOM's modules in the tree at ROOT.
circles() { $LAYERS include-circles --room "$1" "$2" 2>&1; }

rooms=$($LAYERS rooms "$ROOT" 2>&1)
[ -n "$rooms" ] && ok "the tree's rooms are found" || not_ok "the tree's rooms are found" "none"
for room in $rooms; do
	dag "the includes of $room form a DAG" "$(circles "$room" "$ROOT")"
done

# Planted: two modules of bpf/ including each other's headers; a system's
# module and its driver/'s; the core's two, which capture/cli/ includes.
P=$TMP/plant
mkdir -p "$P"/bpf "$P"/scenarios/etcd/driver "$P"/capture/cli
printf '#include "b.h"\n' >"$P"/bpf/a.c
printf '#include "a.h"\n' >"$P"/bpf/b.c
printf '#include "driver/live.h"\n' >"$P"/scenarios/etcd/run.c
printf '#include "../run.h"\n' >"$P"/scenarios/etcd/driver/live.c
printf '#include "core2.h"\n' >"$P"/capture/core.c
printf '#include "core.h"\n' >"$P"/capture/core2.c
printf '#include "../core.h"\n' >"$P"/capture/cli/cmd.c
touch "$P"/bpf/a.h "$P"/bpf/b.h "$P"/scenarios/etcd/run.h "$P"/scenarios/etcd/driver/live.h \
	"$P"/capture/core.h "$P"/capture/core2.h
found=$(for room in $($LAYERS rooms "$P"); do circles "$room" "$P" | sed "s|^|$room: |"; done)
want="bpf/: bpf/a -> bpf/b -> bpf/a
capture/: capture/core -> capture/core2 -> capture/core
scenarios/etcd/: scenarios/etcd/driver/live -> scenarios/etcd/run -> scenarios/etcd/driver/live"
[ "$found" = "$want" ] && ok "planted circles are found, each in its room alone" ||
	not_ok "planted circles are found, each in its room alone" "$found"
