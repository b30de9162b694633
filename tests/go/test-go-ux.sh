#!/bin/bash
# What a new user of capture go meets (docs/go.md): --describe of a binary
# (functions by pattern; one function's arguments, results, fields,
# embedded fields and what they promote, RET sites, inlining), "did you
# mean" on a refused name, a failed run's files kept in DIR.failed/ (a
# failed --fold names a file:line that exists), the summary line, and the
# messages for `go run`, a script and a non-Go program.
# needs: root btf go goproxy jq
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/go/bank.sh"
export PATH=$PATH:/usr/local/go/bin
SPEC=$D/bank.probes
HARNESS=$ROOT/build/etcd/harness

build -o "$TMP/bank" .
build -ldflags=-w -o "$TMP/nodwarf" .
BANK=$TMP/bank

# --describe: the bank's functions, and one of them, as its source says.
describe() { $CAPTURE go --describe "$@" 2>"$TMP/d.err"; }
describe "$BANK" >"$TMP/list" || not_ok "--describe BANK" "$(cat "$TMP/d.err")"
grep -qx 'main.(\*Bank).apply' "$TMP/list" &&
	grep -qx 'main.(\*Account).canPay  (inlined: probe a caller)' "$TMP/list" &&
	! grep -v '^main\.' "$TMP/list" | grep -q . && sort -c "$TMP/list" &&
	ok "--describe BANK: package main's functions, sorted, the inlined one marked" ||
	not_ok "--describe BANK" "$(head -n 5 "$TMP/list")"
describe "$BANK" 'main.(*Bank).*' >"$TMP/glob"
[ "$(grep -c . "$TMP/glob")" = "$(grep -c '^main.(\*Bank)' "$TMP/list")" ] &&
	ok "--describe BANK GLOB: what the glob matches" ||
	not_ok "--describe BANK GLOB" "$(cat "$TMP/glob")"

describe "$BANK" 'main.(*Bank).apply' >"$TMP/apply"
has() {   # has NAME FILE REGEX...: every REGEX is a line of FILE
	local name=$1 file=$2; shift 2
	for re in "$@"; do
		grep -Eq -- "^$re\$" "$file" || { not_ok "$name" "no line /$re/ in: $(head -n 12 "$file")"; return; }
	done
	ok "$name"
}
# The RET sites the disassembler sees (go tool objdump) are those described.
rets=$($GO tool objdump -s '^main\.\(\*Bank\)\.apply$' "$BANK" | grep -cw RET)
has "--describe apply: arguments, the unnamed result as ~r0, fields, RET sites" "$TMP/apply" \
	'func main\.\(\*Bank\)\.apply' \
	"  probe: entry \(at the stack check\) and $rets RET sites? \(every return\)" \
	'    b    \*main\.Bank' '    t    \*main\.Transfer' '    ~r0  bool' \
	'  fields of t \(\*main\.Transfer\):' '    t\.Fee +\*int64' '    b\.accounts +\[\]main\.Account'
describe "$BANK" 'main.(*Bank).report' >"$TMP/report"
has "--describe report: a struct by value, a slice, a named result" "$TMP/report" \
	'    r       main\.Report' '    owners  \[\]string' '    total   int64' \
	'    r\.Balances +\[8\]int64'
grep -q 'owners\.' "$TMP/report" &&
	not_ok "a slice's words are not listed as fields" "$(grep 'owners\.' "$TMP/report")" ||
	ok "a slice's words are not listed as fields"
describe "$BANK" 'main.(*Account).canPay' >"$TMP/canpay"
has "--describe an inlined function: refused, and where it is inlined" "$TMP/canpay" \
	'  inlined: 1 instance in 1 function; .*probe a caller' '    main\.\(\*Bank\)\.apply' \
	'    amount  int64'
! grep -q '0x' "$TMP/apply" && describe "$BANK" 'main.(*Bank).apply' | cmp -s - "$TMP/apply" &&
	ok "--describe: no addresses, the same text twice" || not_ok "--describe: deterministic" "$(grep 0x "$TMP/apply")"
describe "$BANK" 'main.(*Bank).apply' --addresses | grep -Eq '^  file offsets: entry 0x[0-9a-f]+, stack check 0x[0-9a-f]+, RET 0x' &&
	ok "--describe --addresses: the file offsets" || not_ok "--describe --addresses" "$(cat "$TMP/d.err")"
expect_exit 3 "--describe of no match: exit 3, did you mean" \
	'bank: no function matches main.\(\*Bank\)\.aply \(did you mean main\.\(\*Bank\)\.apply' \
	$CAPTURE go --describe "$BANK" 'main.(*Bank).aply'
expect_exit 3 "--describe of a binary without DWARF" 'no DWARF' $CAPTURE go --describe "$TMP/nodwarf"
expect_exit 2 "--describe with a spec: usage" 'usage: capture go' \
	$CAPTURE go --describe "$BANK" --probes "$SPEC"

# etcd's harness (built by capture etcd): an embedded struct and what it
# promotes, a function inlined and also out of line.
[ -x "$HARNESS" ] || $CAPTURE etcd --scenario 02-proposal -o "$TMP/etcd" >/dev/null 2>"$TMP/etcd.err" ||
	not_ok "capture etcd builds the harness" "$(tail -n 2 "$TMP/etcd.err")"
describe "$HARNESS" 'go.etcd.io/raft/v3/tracker.(*ProgressTracker).Committed' >"$TMP/committed"
has "--describe of raft: an embedded field and what it promotes; inlined and out of line" "$TMP/committed" \
	'    p\.Config +go\.etcd\.io/raft/v3/tracker\.Config  embedded; promotes p\.Voters, p\.AutoLeave, p\.Learners, p\.LearnersNext' \
	'  inlined: [0-9]+ instances? in [0-9]+ functions? \(and out of line\); .*' \
	'    go\.etcd\.io/raft/v3\.\(\*raft\)\.maybeCommit'
describe "$HARNESS" 'go.etcd.io/raft/v3.(*raft).Step' >"$TMP/step"
has "--describe raft's Step: its fields, ~r0 an error (an interface: no fields)" "$TMP/step" \
	'    ~r0  error' '    r\.Term +uint64' '    m\.Type +\*go\.etcd\.io/raft/v3/raftpb\.MessageType'
grep -q '~r0\.' "$TMP/step" && not_ok "an interface's words are no fields" "$(grep '~r0\.' "$TMP/step")" ||
	ok "an interface's words are no fields"
describe "$HARNESS" 'tracker.(*ProgressTracker).Vo*' >"$TMP/vo"
[ "$(cat "$TMP/vo")" = 'go.etcd.io/raft/v3/tracker.(*ProgressTracker).VoterNodes' ] &&
	ok "a glob matches a symbol without its package's directories" || not_ok "a glob without directories" "$(cat "$TMP/vo")"

# "Did you mean" on a refused function, field or argument: still exit 3 at SPEC:LINE.
spec fname 'func main.(*Bank).aply' 'entry T' '	id i64 t.ID'
refused fname 'fname.probes:1: .*no function main\.\(\*Bank\)\.aply \(did you mean main\.\(\*Bank\)\.apply'
spec ffield 'func main.(*Bank).apply' 'entry T' '	id i64 t.Id'
refused ffield 'ffield.probes:3: .*main\.Transfer has no field Id \(did you mean ID'
spec farg 'func main.(*Bank).apply' 'entry T' '	id i64 tt.ID'
refused farg 'farg.probes:3: .*no argument or result tt \(did you mean t'
spec fnone 'func main.(*Bank).apply' 'entry T' '	id i64 t.Memo'
expect_exit 3 "no near name: no did-you-mean" 'has no field Memo$' \
	$CAPTURE go --probes "$TMP/fnone.probes" -o "$TMP/out-fnone" -- "$BANK"

# The summary line: records and events as written, none lost.
if $CAPTURE go --probes "$SPEC" -o "$TMP/a" -- "$BANK" >/dev/null 2>"$TMP/a.err"; then
	want="capture: $(grep -c . "$TMP/a/raw/bank.ndjson") records, $(grep -c . "$TMP/a/events/bank.ndjson") events, 0 lost"
	[ "$(tail -n 1 "$TMP/a.err" | cut -d' ' -f1-7)" = "$want" ] &&
		ok "the run ends with its summary line: records, events, 0 lost" ||
		not_ok "the summary line" "$(tail -n 1 "$TMP/a.err"), want $want"
else
	not_ok "capture go of the bank" "$(tail -n 2 "$TMP/a.err")"
fi

# A failed --fold names a file:line of the kept directory, which exists.
expect_exit 3 "--fold refused: the message names OUT.failed/raw/bank.events.ndjson:1" \
	"$TMP/f.failed/raw/bank.events.ndjson:1: neither a with_tla event" \
	$CAPTURE go --probes "$SPEC" --fold etcd -o "$TMP/f" -- "$BANK"
nothing_left "a refused fold: no OUT, no temporary" "$TMP/f"
line=$(sed -n 1p "$TMP/f.failed/raw/bank.events.ndjson" 2>/dev/null)
[ "${line:0:18}" = '{"event":"Transfer' ] && [ -s "$TMP/f.failed/raw/bank.ndjson" ] &&
	ok "the named file:line exists afterwards, beside the raw records" ||
	not_ok "the kept file:line" "$(ls -R "$TMP/f.failed" 2>&1 | head -n 5)"
grep -q "^capture: $TMP/f.failed/raw/bank.events.ndjson:1: neither" "$TMP/f.failed/FAILURE" &&
	ok "FAILURE holds the message" || not_ok "FAILURE holds the message" "$(cat "$TMP/f.failed/FAILURE")"

# Lost records (exit 6): the message says where what was received is kept.
expect_exit 6 "lost events: the message names OUT.failed/" \
	"what the run wrote is kept in $TMP/l.failed/ .*raw/bank.ndjson \([1-9][0-9]* lines?\)" \
	$CAPTURE go --probes "$SPEC" --ring-bytes 4096 --hold-ring -o "$TMP/l" -- "$BANK" -procs 2
nothing_left "lost events: no OUT" "$TMP/l"
n=$(grep -o '[0-9]* records received' "$TMP/.stderr" | cut -d' ' -f1)
[ -n "$n" ] && [ "$(grep -c . "$TMP/l.failed/raw/bank.ndjson")" = "$n" ] &&
	ok "the kept raw stream holds every record received" ||
	not_ok "the kept raw stream" "$n received, $(grep -c . "$TMP/l.failed/raw/bank.ndjson") kept"
# A second failure replaces what capture kept; a directory it did not keep stays.
expect_exit 6 "a timeout: kept again, the older kept directory replaced" "kept in $TMP/l.failed/" \
	$CAPTURE go --probes "$SPEC" --timeout 1 -o "$TMP/l" -- "$BANK" -transfers 400000
grep -q 'timed out' "$TMP/l.failed/FAILURE" && ok "the kept directory is the newer run's" ||
	not_ok "the kept directory is the newer run's" "$(cat "$TMP/l.failed/FAILURE")"
mkdir -p "$TMP/m.failed" && echo mine >"$TMP/m.failed/notes"
expect_exit 3 "OUT.failed not capture's: left as it was, said so" \
	"m.failed exists and is not what capture kept" \
	$CAPTURE go --probes "$SPEC" --fold etcd -o "$TMP/m" -- "$BANK"
[ "$(ls "$TMP/m.failed")" = notes ] && nothing_left "its files not kept elsewhere" "$TMP/m" ||
	not_ok "OUT.failed not capture's is left as it was" "$(ls "$TMP/m.failed")"

# SIGINT: an interrupted run keeps nothing.
env --default-signal=INT $CAPTURE go --probes "$SPEC" -o "$TMP/int" -- \
	"$BANK" -workers 1 -transfers 400000 >/dev/null 2>"$TMP/int.err" &
pid=$!
started_then "$TMP/int.tmp-*/raw/bank.ndjson" "$pid" && sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] && [ ! -e "$TMP/int.failed" ] && nothing_left "SIGINT: exit 130, nothing kept" "$TMP/int" ||
	not_ok "SIGINT: exit 130, nothing kept" "exit $rc: $(ls -d "$TMP"/int* 2>&1)"

# Not a Go binary: go run, a script, another ELF, no ELF; nothing written.
(cd "$D/bank" && $CAPTURE go --probes "$SPEC" -o "$TMP/g" -- go run . >/dev/null 2>"$TMP/g.err")
rc=$?
[ "$rc" = 2 ] && grep -q 'is the go tool: `go run` builds the program without the DWARF .*build it first.*go build -o prog \.' "$TMP/g.err" &&
	ok "go run: exit 2, build it first, with the command" || not_ok "go run" "exit $rc: $(cat "$TMP/g.err")"
nothing_left "go run: nothing written" "$TMP/g"
printf '#!/bin/sh\nexec %s\n' "$BANK" >"$TMP/run.sh" && chmod +x "$TMP/run.sh"
expect_exit 2 "a script: exit 2, not a Go binary" 'run.sh is a script \(#!/bin/sh\), not a Go binary' \
	$CAPTURE go --probes "$SPEC" -o "$TMP/g" -- "$TMP/run.sh"
expect_exit 3 "an ELF that is no Go program: exit 3" 'ls is an ELF executable but not a Go program' \
	$CAPTURE go --probes "$SPEC" -o "$TMP/g" -- ls
printf 'data\n' >"$TMP/data" && chmod +x "$TMP/data"
expect_exit 3 "neither ELF nor script: exit 3" 'data is neither an ELF executable nor a script' \
	$CAPTURE go --probes "$SPEC" -o "$TMP/g" -- "$TMP/data"
nothing_left "not a Go binary: nothing written" "$TMP/g"
