#!/bin/bash
# capture go: a Go program of our own (tests/go/bank, goroutines and child
# processes) traced unmodified from a probe spec alone, its events checked
# against what it logged; every refusal of a spec or binary.
# needs: root btf go goproxy jq python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/go/bank.sh"
SPEC=$D/bank.probes

build -o "$TMP/bank" .
build -ldflags=-w -o "$TMP/nodwarf" .
BANK="$TMP/bank -procs 2 -workers 3 -transfers 40"

# The capture: the bank's log is its stdout, then capture prints the corpus.
if $CAPTURE go --probes "$SPEC" -o "$TMP/a" -- $BANK >"$TMP/a.out" 2>"$TMP/a.err"; then
	ok "capture go of the bank (3 processes, 3 goroutines each)"
else
	not_ok "capture go of the bank" "$(tail -n 2 "$TMP/a.err")"
fi
head -n -1 "$TMP/a.out" >"$TMP/a.log"
if python3 "$D/check-bank.py" "$TMP/a/events/bank.ndjson" "$TMP/a.log" 3 >"$TMP/check" 2>&1; then
	ok "events = the bank's own log, per process, in order"
else
	not_ok "events = the bank's own log" "$(head -n 3 "$TMP/check")"
fi
# The check can fail: one amount changed in the log.
sed '5s/amount [0-9]*/amount 999/' "$TMP/a.log" >"$TMP/bad.log"
if python3 "$D/check-bank.py" "$TMP/a/events/bank.ndjson" "$TMP/bad.log" 3 >/dev/null 2>&1; then
	not_ok "a log that differs fails the check" "check-bank.py passed it"
else
	ok "a log that differs fails the check"
fi

m=$TMP/a/MANIFEST.json
want_sha=$(sha256sum "$TMP/bank" | cut -d' ' -f1)
spec_sha=$(sha256sum "$SPEC" | cut -d' ' -f1)
got=$(jq -c '[.environment.binary_sha256, .environment.spec_sha256, .processes, .events, .losses]' "$m" 2>&1)
want="[\"$want_sha\",\"$spec_sha\",3,{\"Transfer\":360,\"Applied\":360,\"Report\":3,\"Reported\":3},{\"ring_buffer_drops\":0,\"exits_without_entry\":0,\"frames_not_saved\":0,\"probes_preempted\":0}]"
if [ "$got" = "$want" ]; then
	ok "manifest: binary and spec sha256, 3 processes, 360 transfers and 3 reports each way, no losses"
else
	not_ok "manifest" "got $got"
fi
want_id=$($GO tool buildid "$TMP/bank")
if [ "$(jq -r .environment.go_build_id "$m")" = "$want_id" ]; then
	ok "manifest: the Go build id (as go tool buildid prints it)"
else
	not_ok "manifest: the Go build id" "$(jq -r .environment.go_build_id "$m") != $want_id"
fi
# Nothing run-specific: no pid or address in the records (a heap or stack
# address is above 2^32; the bank's values stay far below).
big=$(grep -Eo '[0-9]{10,}' "$TMP/a/raw/bank.ndjson" "$TMP/a/events/bank.ndjson" | head -n 3)
if [ -z "$big" ]; then
	ok "no address or pid in raw records or events"
else
	not_ok "no address or pid in raw records or events" "$big"
fi

# Lost records fail the run, with the counts, and leave nothing.
expect_exit 6 "a 4 KiB ring read at the end: lost events with counts" \
	'lost events: [1-9][0-9]* ring-buffer drops' \
	$CAPTURE go --probes "$SPEC" --ring-bytes 4096 --hold-ring -o "$TMP/x0" -- $BANK
nothing_left "no corpus after lost events" "$TMP/x0"

# SIGINT while the bank's second process runs: exit 130, both processes
# gone (the target's process group), nothing left.
env --default-signal=INT $CAPTURE go --probes "$SPEC" -o "$TMP/int" -- \
	"$TMP/bank" -procs 1 -workers 1 -transfers 200000 >/dev/null 2>"$TMP/int.err" &
pid=$!
for ((i = 0; i < 1200; i++)); do
	pgrep -f "^$TMP/bank -proc 1" >/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
if pgrep -f "^$TMP/bank -proc 1" >/dev/null; then
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 130 ] && ok "SIGINT in the second process: exit 130" ||
		not_ok "SIGINT in the second process: exit 130" "exit $rc: $(tail -n 2 "$TMP/int.err")"
	left=$(pgrep -af "^$TMP/bank")
	[ -z "$left" ] && ok "SIGINT: no bank process left" || not_ok "SIGINT: no bank process left" "$left"
	nothing_left "SIGINT: no corpus left" "$TMP/int"
else
	not_ok "SIGINT in the second process" "it never ran: $(tail -n 2 "$TMP/int.err")"
	wait "$pid"
fi

expect_exit 6 "--timeout: the target killed, the run failed" 'timed out after 1 s' \
	$CAPTURE go --probes "$SPEC" --timeout 1 -o "$TMP/x5" -- "$TMP/bank" -transfers 400000
nothing_left "no corpus after a timeout" "$TMP/x5"

spec missing '# no such function' 'func main.(*Bank).withdraw' 'entry W' '	x i64 b.applied'
refused missing 'missing.probes:2: .*no function main\.\(\*Bank\)\.withdraw'
spec inlined 'func main.(*Account).canPay' 'entry Pay' '	amount i64 amount'
refused inlined 'inlined.probes:1: .*canPay is inlined into its callers'
spec nofield 'func main.(*Bank).apply' 'entry T' '	id i64 t.ID' '	memo i64 t.Memo'
refused nofield 'nofield.probes:4: .*t\.Memo: main\.Transfer has no field Memo'
spec size 'func main.(*Bank).apply' 'return A' '	from i64 t.From'
refused size 'size.probes:3: t\.From is int32 \(4 bytes, as i32\), not i64'
spec notint 'func main.(*Bank).apply' 'entry T' '	acct i64 b.accounts[0]'
refused notint 'notint.probes:3: .*main\.Account is not a boolean or an integer'
spec address 'func main.(*Bank).apply' 'entry T' '	t u64 t'
refused address 'address.probes:3: .*is an address'
spec result 'func main.(*Bank).apply' 'entry T' '	ok bool ~r0'
refused result 'result.probes:3: .*result ~r0 is only known at a return'
spec noarg 'func main.(*Bank).apply' 'entry T' '	x i64 q.ID'
refused noarg 'noarg.probes:3: .*no argument or result q'
spec syntax 'func main.(*Bank).apply' 'entry T' '	id int64 t.ID'
refused syntax 'syntax.probes:3: type .int64.: one of bool'
spec nofunc 'entry T'
refused nofunc 'nofunc.probes:1: entry before any .func.'
spec twice 'func main.(*Bank).apply' 'entry T' '	id i64 t.ID' 'entry U'
refused twice 'twice.probes:4: .*already has its entry event and fields \(line 2\)'
spec empty '# nothing'
refused empty 'empty.probes: the probe spec names no function'
cp "$SPEC" "$TMP/nodwarf.probes"
refused nodwarf 'nodwarf: no DWARF .*rebuild it with a plain go build' "$TMP/nodwarf"

spec later 'func main.(*Bank).apply' 'entry T' '	from owners t.From' 'names owners a b c d'
refused later "later.probes:3: type 'owners': one of bool.*or a names table defined above"
spec tabletwice 'names owners a b' 'names owners c d'
refused tabletwice 'tabletwice.probes:2: table owners defined twice'
spec baddefault 'func main.(*Bank).apply' 'entry T' '	fee i64 *t.Fee or none'
refused baddefault 'baddefault.probes:3: or none: a default is a number'
spec booltable 'names yesno no yes' 'func main.(*Bank).apply' 'return A' '	ok yesno ~r0'
refused booltable 'booltable.probes:4: ~r0 is bool: a table names integers'

spec bytable 'func main.(*Bank).apply' 'entry kinds by from' '	from i32 t.From'
refused bytable 'bytable.probes:2: no names table kinds above'
spec byfield 'names kinds a b c d' 'func main.(*Bank).apply' 'entry kinds by from' '	to i32 t.To'
refused byfield 'byfield.probes:3: by from: no field from below'

# Names and defaults: accounts by name, a nil fee as 0, as the log says.
spec names 'names owners alice bob carol dave' 'func main.(*Bank).apply' 'entry T' \
	'	from owners t.From' '	fee i64 *t.Fee or 0'
if $CAPTURE go --probes "$TMP/names.probes" -o "$TMP/n" -- $BANK >"$TMP/n.out" 2>"$TMP/n.err"; then
	got=$(jq -r '"\(.from) \(.fee)"' "$TMP/n/events/bank.ndjson" | sort | uniq -c | awk '{print $1, $2, $3}' | md5sum)
	want=$(grep -o 'from [0-9]* to [0-9]* amount [0-9]* fee [a-z0-9]*' "$TMP/n.out" |
	       awk '{n = split("alice bob carol dave", o, " "); print o[$2 + 1], ($8 == "none" ? 0 : $8)}' |
	       sort | uniq -c | awk '{print $1, $2, $3}' | md5sum)
	[ "$got" = "$want" ] && ok "names and defaults: accounts by name, a nil fee as 0, as logged" ||
		not_ok "names and defaults" "$(jq -c . "$TMP/n/events/bank.ndjson" | head -n 2)"
else
	not_ok "names and defaults capture" "$(tail -n 2 "$TMP/n.err")"
fi
spec fewnames 'names owners alice bob' 'func main.(*Bank).apply' 'entry T' '	from owners t.From'
expect_exit 6 "a value with no name fails the run at its field's line" \
	'fewnames.probes:4: from: [23] has no name in table owners' \
	$CAPTURE go --probes "$TMP/fewnames.probes" -o "$TMP/x6" -- "$TMP/bank"
nothing_left "no corpus after a value with no name" "$TMP/x6"

# A slice longer than the spec reads: its first N and its length; a
# "per" over it fails the run at the event's line (it would miss elements).
spec short 'func main.(*Bank).apply' 'entry T' '	balances i64 b.accounts[:2].Balance'
$CAPTURE go --probes "$TMP/short.probes" -o "$TMP/x1" -- "$TMP/bank" >/dev/null 2>"$TMP/x1.err" ||
	not_ok "capture with a slice longer than [:N]" "$(tail -n 2 "$TMP/x1.err")"
if [ -s "$TMP/x1/events/bank.ndjson" ] &&
   ! grep -Eqv '"balances":\{"first":\[[0-9]+,[0-9]+\],"len":4\}\}$' "$TMP/x1/events/bank.ndjson"; then
	ok "a slice longer than [:N]: its first N and its length"
else
	not_ok "a slice longer than [:N]: its first N and its length" "$(head -n 1 "$TMP/x1/events/bank.ndjson")"
fi
spec pershort 'func main.(*Bank).apply' 'entry T per bal == 100' '	bal i64 b.accounts[:2].Balance'
expect_exit 6 "per over a slice longer than [:N]: the event's file:line" \
	'pershort.probes:2: per bal: the slice is nil or longer than \[:2\] \(4 elements\)' \
	$CAPTURE go --probes "$TMP/pershort.probes" -o "$TMP/x7" -- "$TMP/bank"
nothing_left "no corpus after a per over a slice too long" "$TMP/x7"

expect_exit 2 "no --probes: usage" 'usage: capture go' $CAPTURE go -- "$TMP/bank"
expect_exit 2 "no such command" 'no-such-bank: no such command' \
	$CAPTURE go --probes "$SPEC" -o "$TMP/x2" -- no-such-bank

# --fold: the spec's events are the folder's input; the bank's are no
# system's events, which the folder refuses at their first line.
expect_exit 3 "--fold etcd of the bank's events: the folder names raw/bank.events.ndjson:1" \
	'raw/bank.events.ndjson:1: neither a with_tla event' \
	$CAPTURE go --probes "$SPEC" --fold etcd -o "$TMP/x3" -- "$TMP/bank"
nothing_left "no corpus after a refused fold" "$TMP/x3"
expect_exit 2 "--fold of an unknown system" "unknown system 'nosuch'" \
	$CAPTURE go --probes "$SPEC" --fold nosuch -o "$TMP/x4" -- "$TMP/bank"

# capture etcd's probes are a spec (scenarios/etcd/raft.probes): capture go
# with it on the harness writes, for every scenario, exactly the events
# capture etcd writes as its raw stream.
export PATH=$PATH:/usr/local/go/bin
RAFT=$ROOT/scenarios/etcd/raft.probes
check "capture etcd of all scenarios" $CAPTURE etcd --scenario all -o "$TMP/etcd"
for s in "$ROOT"/scenarios/etcd/0[1-9]-*; do
	n=$(basename "$s")
	if ! $CAPTURE go --probes "$RAFT" -o "$TMP/raft-$n" -- \
		"$ROOT/build/etcd/harness" "$s" >/dev/null 2>"$TMP/raft.err"; then
		not_ok "raft spec capture $n" "$(tail -n 2 "$TMP/raft.err")"
	else
		same_bytes "raft spec $n: capture go's events = capture etcd's" \
			"$TMP/raft-$n/events/harness.ndjson" "$TMP/etcd/raw/$n.ndjson"
	fi
done
# --fold etcd: the spec's events are the folder's input, as capture etcd's.
check "capture go --fold etcd with the raft spec" $CAPTURE go --probes "$RAFT" --fold etcd \
	-o "$TMP/raft-fold" -- "$ROOT/build/etcd/harness" "$ROOT/scenarios/etcd/02-proposal"
same_bytes "capture go --fold etcd: the windows of capture etcd" \
	"$TMP/raft-fold/etcd/harness.ndjson" "$TMP/etcd/etcd/02-proposal.ndjson"
want_sha=$(sha256sum "$RAFT" | cut -d' ' -f1)
[ "$(jq -r .environment.spec_sha256 "$TMP/etcd/MANIFEST.json")" = "$want_sha" ] &&
	ok "capture etcd's manifest: the spec's sha256" ||
	not_ok "capture etcd's manifest: the spec's sha256" "$(jq -c .environment "$TMP/etcd/MANIFEST.json")"

# A program whose schedule is fixed (the harness has no goroutines of its
# own) gives the same bytes twice, and capture verify reruns it.
p=$ROOT/scenarios/etcd/02-proposal
check "raft spec capture again" $CAPTURE go --probes "$RAFT" -o "$TMP/raft-again" -- \
	"$ROOT/build/etcd/harness" "$p"
if diff -r "$TMP/raft-02-proposal" "$TMP/raft-again" >"$TMP/diff" 2>&1; then
	ok "two captures of a deterministic program byte-identical (raw, events, manifest)"
else
	not_ok "two captures byte-identical" "$(head -n 3 "$TMP/diff")"
fi
check "capture verify of a capture go corpus" $CAPTURE verify "$TMP/raft-02-proposal"
