#!/usr/bin/env bash
# The table of systems and the one live-capture loop (docs/architecture.md):
# every live system is a command, every command knows every system, and the
# loop's scenario selection, driver choice and messages are the same for
# each system.  Nothing here boots a guest or runs a probe.
# needs:
source "$(dirname "$0")/../lib.sh"

# The systems as the table gives them (capture list), and the live ones as
# the tree does: a system that runs is its scenarios/NAME directory, a
# family's room (tests/layers/layers.py's FAMILIES) none.
"$CAPTURE" --help >"$TMP/help" 2>&1
"$CAPTURE" list >"$TMP/list" 2>&1
systems=$(sed -n 's/^\([a-z0-9-]*\): .*/\1/p' "$TMP/list")
live=$(comm -23 <(cd "$ROOT/scenarios" && ls -d */ | tr -d / | sort) \
	<(python3 "$ROOT/tests/layers/layers.py" families | sort))
check "the family rooms are scenarios/ directories, no system" \
	test "$(echo "$live" | wc -w)" -lt "$(cd "$ROOT/scenarios" && ls -d */ | wc -l)"
for sys in $live; do
	check "capture --help lists the live system $sys" grep -Eq "^  $sys +run " "$TMP/help"
	check "capture list lists $sys's scenarios" \
		grep -q '^  scenarios: ' <(sed -n "/^$sys: /,/^[a-z]/p" "$TMP/list")
done
check "capture list: only the live systems list scenarios" \
	test "$(grep -c '^  scenarios:' "$TMP/list")" = "$(echo "$live" | wc -w)"
folded_only=$(comm -23 <(echo "$systems" | sort) <(echo "$live" | sort) | head -n 1)
check "some system is folded only ($folded_only)" test -n "$folded_only"
expect_exit 2 "a system folded only is no command" "'$folded_only' is not a command" \
	"$CAPTURE" "$folded_only" --scenario all

check "capture list: spin's scenarios from its directory" \
	grep -qx '  scenarios: contention long' "$TMP/list"
check "capture list: etcd's scenarios in NN order" \
	grep -qx '  scenarios: election proposal heartbeat vote-rejection second-election' "$TMP/list"
check "capture list: hashicorp runs etcd's scenario files" \
	grep -qx '  scenarios: election proposal heartbeat vote-rejection second-election' \
	<(grep -A3 '^hashicorp:' "$TMP/list")

# One known-list for systems, whatever the command: the table's, in order.
known="known: $(echo $systems | sed 's/ /, /g')\)"
expect_exit 2 "fold: an unknown system lists them all" "unknown system 'nosuch' \($known" \
	"$CAPTURE" fold nosuch "$TMP/help"
expect_exit 2 "convert: the same list" "unknown system 'nosuch' \($known" \
	"$CAPTURE" convert --system nosuch "$TMP/help" "$TMP/out.ndjson"

# One scenario selection for every live system.
expect_exit 2 "spin: an unknown scenario lists the known ones" \
	"no spin scenario 'nosuch' \(known: contention, long, or all\)" \
	"$CAPTURE" spin --scenario nosuch -o "$TMP/u"
expect_exit 2 "etcd: the same message" \
	"no etcd scenario 'nosuch' \(known: election, proposal, heartbeat, vote-rejection, second-election, or all\)" \
	"$CAPTURE" etcd --via trace --scenario nosuch -o "$TMP/u"
mkdir -p "$TMP/empty"
expect_exit 2 "a --scenarios directory without scenario files" \
	"no spin scenario 'x' \(known: all\)" \
	"$CAPTURE" spin --scenarios "$TMP/empty" --scenario x -o "$TMP/u"
expect_exit 2 "a --scenarios directory that is not there is the user's error" \
	"$TMP/none: cannot open the scenario directory" \
	"$CAPTURE" spin --scenarios "$TMP/none" --scenario all -o "$TMP/u"
expect_exit 5 "a scenario directory missing from the installation is the environment's" \
	"scenarios/spin: cannot open the scenario directory" \
	env CAPTURE_HOME="$TMP/empty" "$CAPTURE" spin --scenario all -o "$TMP/u"
nothing_left "no corpus begun for a bad selection" "$TMP/u"

# --scenarios DIR for spin too: NAME or NN-NAME selects, files in NN order.
mkdir -p "$TMP/mine"
printf '0 lock\n0 release\n' >"$TMP/mine/10-late"
printf '1 try\n' >"$TMP/mine/2-early"
printf 'not a scenario\n' >"$TMP/mine/README"
for sel in late 10-late; do
	"$CAPTURE" spin --kernel asterinas --emit-ktest --scenarios "$TMP/mine" \
		--scenario "$sel" >"$TMP/late.rs" 2>"$TMP/err" || true
	check "spin --scenarios DIR --scenario $sel" grep -q '^fn capture_spin_late() {$' "$TMP/late.rs"
done
expect_exit 2 "the known list of a --scenarios DIR is in NN order" \
	"known: early, late, or all\)" \
	"$CAPTURE" spin --scenarios "$TMP/mine" --scenario README -o "$TMP/u"
# An output is never an input: -o that holds or lies inside the
# --scenarios directory is refused before anything runs.
expect_exit 2 "-o holding the --scenarios directory" \
	"output $TMP would replace input $TMP/mine: give another output" \
	"$CAPTURE" spin --scenarios "$TMP/mine" --scenario all -o "$TMP"
expect_exit 2 "-o inside the --scenarios directory" \
	"output $TMP/mine/out lies inside input $TMP/mine: give another output" \
	"$CAPTURE" spin --scenarios "$TMP/mine" --scenario all -o "$TMP/mine/out"
[ ! -e "$TMP/mine/out" ] && ok "-o inside --scenarios: nothing written" ||
	not_ok "-o inside --scenarios: nothing written" "$(ls "$TMP/mine")"

# The driver option and each driver's own options.
expect_exit 2 "spin: an unknown --kernel lists the drivers" \
	"--kernel: no driver 'bogus' \(known: linux, asterinas\)" \
	"$CAPTURE" spin --kernel bogus --scenario all -o "$TMP/u"
expect_exit 2 "etcd: an unknown --via lists the drivers" \
	"--via: no driver 'bogus' \(known: ebpf, trace\)" \
	"$CAPTURE" etcd --via bogus --scenario all -o "$TMP/u"
expect_exit 2 "a driver's option with another driver" \
	"--asterinas-src needs --kernel asterinas" \
	"$CAPTURE" spin --asterinas-src /x --scenario all -o "$TMP/u"
expect_exit 2 "etcd's eBPF options need --via ebpf" "--hold-ring needs --via ebpf" \
	"$CAPTURE" etcd --via trace --hold-ring --scenario all -o "$TMP/u"
expect_exit 2 "no --scenario: the system's usage" "^usage: capture etcd " \
	"$CAPTURE" etcd --via trace

# etcd's modes (--live, --explore, --merge) take the loop's one table: an
# option of another mode is refused naming both; the options every eBPF
# command shares are parsed by one parser.
expect_exit 2 "an --explore option in a scenario capture" \
	"--seed does not go with a scenario capture" \
	"$CAPTURE" etcd --seed 3 --via trace --scenario all -o "$TMP/u"
expect_exit 2 "a --live option with --explore" "--clients does not go with --explore" \
	"$CAPTURE" etcd --explore --clients 2 -o "$TMP/u"
expect_exit 2 "a driver's option with --explore" "--hold-ring does not go with --explore" \
	"$CAPTURE" etcd --explore --hold-ring -o "$TMP/u"
expect_exit 2 "--live probes: not --via trace" "--via trace does not go with --live" \
	"$CAPTURE" etcd --live --via trace -o "$TMP/u"
expect_exit 2 "one mode at a time" "^usage: capture etcd " \
	"$CAPTURE" etcd --live --merge "$TMP/u" -o "$TMP/u"
expect_exit 2 "capture etcd --ring-bytes: the one parser" \
	"--ring-bytes 1000: a power of two of at least 4096" \
	"$CAPTURE" etcd --ring-bytes 1000 --scenario all -o "$TMP/u"
expect_exit 2 "capture go --ring-bytes: the one parser" \
	"--ring-bytes 1000: a power of two of at least 4096" \
	"$CAPTURE" go --ring-bytes 1000 --probes x -o "$TMP/u" -- true
nothing_left "no corpus begun for a bad option" "$TMP/u"

# --scenario PATH: one scenario file wherever it is (a '/' in the name).
"$CAPTURE" spin --kernel asterinas --emit-ktest --scenario "$TMP/mine/2-early" \
	>"$TMP/early.rs" 2>"$TMP/err" || true
check "--scenario DIR/NN-NAME: that file" grep -q '^fn capture_spin_early() {$' "$TMP/early.rs"
expect_exit 2 "--scenario PATH that is not there" "$TMP/mine/3-gone: no such scenario file" \
	"$CAPTURE" spin --scenario "$TMP/mine/3-gone" -o "$TMP/u"
expect_exit 2 "--scenario PATH not named NN-NAME" "README: scenario file names are NN-NAME" \
	"$CAPTURE" spin --scenario "$TMP/mine/README" -o "$TMP/u"
expect_exit 2 "a capture takes no operand" "^usage: capture spin " \
	"$CAPTURE" spin --scenario all extra -o "$TMP/u"
nothing_left "no corpus begun for a bad scenario path or an operand" "$TMP/u"
