#!/bin/bash
# The layers of docs/architecture.md: a room includes, and references
# symbols of, only itself and rooms of a lower layer (tests/layers/layers.py
# has the rooms).  Read from the #include lines of the sources and from the
# objects of the sanitizer build (nm).  Each rule also runs on a planted
# violation, which it must find.
# needs: python3
source "$(dirname "$0")/../lib.sh"
LAYERS="python3 $TESTS_DIR/layers/layers.py"
OBJ=$ROOT/build/asan/obj

# rule NAME OUTPUT: no violation.
rule() {
	if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$(printf '%s' "$2" | head -n 3)"; fi
}
# planted NAME EXPECTED OUTPUT: the rule finds exactly the planted ones.
planted() {
	local n
	n=$(printf '%s' "$3" | grep -c . || true)
	[ "$n" = "$2" ] && ok "$1" || not_ok "$1" "found $n, expected $2: $3"
}

if [ ! -d "$OBJ/capture/cli" ]; then
	not_ok "the sanitizer build's objects are there" "no $OBJ (make asan)"
	exit 0
fi
rule "every #include goes to the same room or a lower layer" "$($LAYERS includes "$ROOT")"
rule "every symbol used is defined in the same room or a lower layer" \
	"$($LAYERS symbols "$OBJ")"
rule "no object outside the CLI uses a symbol only the CLI defines" \
	"$($LAYERS cli-symbols "$OBJ")"
# Within a room the arrows run one way too: in no room of the tree
# (layers.py's table: a new system's is one) does an object use a symbol
# of one that uses its own, round a circle.  Every source is in a room but
# the tests', the benchmarks' and the build's, so none escapes the rules.
rule "every source of the tree is in a room" "$($LAYERS roomless "$ROOT" 2>&1)"
rooms=$($LAYERS rooms "$ROOT" 2>&1)
for room in $rooms; do
	rule "the objects of $room use each other's symbols without a circle" \
		"$($LAYERS symbol-circles --room "$room" "$OBJ" 2>&1)"
done
# The issue's own words: no system or library calls the CLI's loop, prints
# its usage, or re-runs getopt over an argv of its own.
rule "no live_usage, live_capture_from or optind below the CLI" \
	"$(cd "$ROOT" && grep -rnwE 'live_usage|live_capture_from|optind' folders scenarios qemu bpf)"

# Planted: the core including a system, a system another, a library the
# other library, a reader the CLI, two systems' live sides each other's;
# two allowed includes (a system the core, a system's live side its
# folder).
P=$TMP/plant
mkdir -p "$P"/capture/cli "$P"/capture/readers "$P"/folders/a "$P"/folders/b \
	"$P"/qemu "$P"/bpf "$P"/scenarios/a
touch "$P"/folders/a/a.h "$P"/folders/b/b.h "$P"/bpf/b.h "$P"/capture/cli/command.h \
	"$P"/capture/core.h
printf '#include "../folders/a/a.h"\n' >"$P"/capture/c.c
printf '#include "../b/b.h"\n#include "../../capture/core.h"\n' >"$P"/folders/a/a.c
printf '#include "../bpf/b.h"\n' >"$P"/qemu/q.c
printf '#include "../cli/command.h"\n' >"$P"/capture/readers/r.c
printf '#include "../../folders/a/a.h"\n' >"$P"/scenarios/a/s.c
# Two rafts share the family's rooms, never each other's.
mkdir -p "$P"/scenarios/etcd/driver "$P"/scenarios/hashicorp/driver
touch "$P"/scenarios/etcd/driver/ebpf.h "$P"/scenarios/hashicorp/driver/h.h
printf '#include "../../etcd/driver/ebpf.h"\n' >"$P"/scenarios/hashicorp/driver/live.c
printf '#include "../../hashicorp/driver/h.h"\n' >"$P"/scenarios/etcd/driver/e.c
planted "a planted include up or sideways is found (6 of 8)" 6 "$($LAYERS includes "$P")"

# A family's rooms (scenarios/raft/, folders/raft/) sit below its
# systems': a system includes its family's, the family none of its
# systems', and the family's live side its folding side.
F=$TMP/family
mkdir -p "$F"/scenarios/raft "$F"/scenarios/etcd/driver "$F"/folders/raft "$F"/folders/etcd
touch "$F"/scenarios/raft/ebpf.h "$F"/scenarios/etcd/driver/live.h \
	"$F"/folders/raft/raft.h "$F"/folders/etcd/etcd.h
printf '#include "../../raft/ebpf.h"\n' >"$F"/scenarios/etcd/driver/live.c
printf '#include "../../folders/raft/raft.h"\n' >"$F"/scenarios/raft/explore.c
printf '#include "../raft/raft.h"\n' >"$F"/folders/etcd/etcd.c
printf '#include "../etcd/driver/live.h"\n' >"$F"/scenarios/raft/served.c
printf '#include "../etcd/etcd.h"\n' >"$F"/folders/raft/raft.c
planted "a family's room including one of its systems' is found (2 of 5)" 2 \
	"$($LAYERS includes "$F")"

# Planted objects: the core calls the CLI, a folder another system's.
O=$TMP/obj
mkdir -p "$O"/capture/cli "$O"/folders/a "$O"/folders/b
compile() { printf '%s\n' "$2" | ${CC:-cc} -x c -c -o "$O/$1" -; }
compile capture/cli/cmd.o 'int cli_only(void) { return 1; }'
compile capture/core.o 'int cli_only(void); int core(void) { return cli_only(); }'
compile folders/a/a.o 'int fa(void) { return 2; }'
compile folders/b/b.o 'int fa(void); int fb(void) { return fa(); }'
planted "a planted symbol up or sideways is found" 2 "$($LAYERS symbols "$O")"
planted "a planted use of a CLI-only symbol is found" 1 "$($LAYERS cli-symbols "$O")"
# Planted: three objects of bpf/ calling round a circle, and one beside it.
mkdir -p "$O"/bpf
compile bpf/a.o 'int b(void); int a(void) { return b(); }'
compile bpf/b.o 'int c(void); int b(void) { return c(); }'
compile bpf/c.o 'int a(void); int c(void) { return a(); }'
compile bpf/d.o 'int a(void); int d(void) { return a(); }'
planted "a planted circle of three objects is found" 1 "$($LAYERS symbol-circles "$O/bpf")"
# A room's circle through its subdirectory (a system's driver/) is found
# in that room, not in the rooms above or below it; the core's alone in
# the core, not through capture/cli/.
O=$TMP/roomobj
mkdir -p "$O"/scenarios/etcd/driver "$O"/capture/cli
compile scenarios/etcd/run.o 'int drive(void); int run(void) { return drive(); }'
compile scenarios/etcd/driver/live.o 'int run(void); int drive(void) { return run(); }'
compile scenarios/shared.o 'int run(void); int shared(void) { return run(); }'
compile capture/core.o 'int core2(void); int core(void) { return core2(); }'
compile capture/core2.o 'int core(void); int core2(void) { return core(); }'
compile capture/cli/cmd.o 'int core(void); int cli_only(void) { return core(); }'
planted "a planted circle through a room's subdirectory is found in it" 1 \
	"$($LAYERS symbol-circles --room scenarios/etcd/ "$O")"
planted "that circle is no other room's" 0 "$($LAYERS symbol-circles --room scenarios/ "$O")"
planted "a planted circle of the core is the core's, not the CLI's" 1 \
	"$($LAYERS symbol-circles --room capture/ "$O"; $LAYERS symbol-circles --room capture/cli/ "$O")"
# A static function of one object named as another's is no arrow to it:
# q's static shared() does not make r, which calls p's, use q.
mkdir -p "$O"/folders/raft
compile folders/raft/p.o 'int shared(void) { return 1; }'
compile folders/raft/q.o 'int rf(void); static int shared(void) { return 2; }
int qf(void) { return shared() + rf(); }'
compile folders/raft/r.o 'int shared(void); int rf(void) { return shared(); }'
planted "a static function is no arrow to its object" 0 \
	"$($LAYERS symbol-circles --room folders/raft/ "$O")"
# The rooms are the tree's: a new system's folder is one, and a source
# outside every room (and outside tests/, bench/, build/) is named.
R=$TMP/rooms
mkdir -p "$R"/folders/newsys "$R"/tests "$R"/newtop "$R"/capture/cli
touch "$R"/folders/newsys/n.c "$R"/tests/t.c "$R"/newtop/x.c "$R"/capture/c.h "$R"/capture/cli/m.c
[ "$($LAYERS rooms "$R" | tr '\n' ' ')" = "capture/ capture/cli/ folders/newsys/ " ] &&
	ok "the rooms are read from the tree" ||
	not_ok "the rooms are read from the tree" "$($LAYERS rooms "$R")"
[ "$($LAYERS roomless "$R")" = newtop/x.c ] && ok "a source in no room is found" ||
	not_ok "a source in no room is found" "$($LAYERS roomless "$R")"
O=$TMP/familyobj
mkdir -p "$O"/folders/raft "$O"/folders/etcd
compile folders/raft/raft.o 'int etcd_only(void); int fold(void) { return etcd_only(); }'
compile folders/etcd/etcd.o 'int fold(void); int etcd_only(void) { return fold(); }'
planted "a family's symbol used by a system is allowed, the reverse is found" 1 \
	"$($LAYERS symbols "$O")"
