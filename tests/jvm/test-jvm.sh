#!/bin/bash
# capture jvm on a Java program (docs/zookeeper.md, "The agent"): the
# ledger (tests/jvm/Ledger.java: worker threads taking turns) traced by
# tests/jvm/ledger.probes at a method's entry and returns, a source line
# and a static method's return, checked against its own log
# (check-ledger.py), which fails on a log with one amount changed; two
# runs byte-identical; the manifest; --describe of a class and a method;
# every refusal with exit 3, its SPEC:LINE and nothing written; a program
# that exits non-zero or halts (its agent's last message never comes)
# fails with exit 6 and keeps what it captured; a command that starts no
# JVM is a usage error.
# needs: java python3 jq
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/jvm
CLS=$TMP/cls

javac -g -d "$CLS" "$D/Ledger.java" 2>"$TMP/javac.err" ||
	not_ok "javac the ledger" "$(tail -n 2 "$TMP/javac.err")"

run() {   # run NAME [ARGS...]: the ledger under the spec into $TMP/NAME
	local name=$1; shift
	$CAPTURE jvm --probes "$D/ledger.probes" -o "$TMP/$name" -- \
		java -cp "$CLS" Ledger "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

if run a 2 12; then ok "capture jvm of the ledger"; else
	not_ok "capture jvm of the ledger" "$(tail -n 2 "$TMP/a.err")"; fi
head -n -1 "$TMP/a.out" >"$TMP/a.log"   # the corpus directory ends stdout
if out=$(python3 "$D/check-ledger.py" "$TMP/a.log" "$TMP/a/events/java.ndjson" 2>&1); then
	ok "arguments, fields, locals at a line, enums, strings, boxes, casts, lengths as logged ($out)"
else
	not_ok "the events against the ledger's log" "$out"
fi
sed '3s/amount=\([0-9]*\)/amount=9\1/' "$TMP/a.log" >"$TMP/bad.log"
if python3 "$D/check-ledger.py" "$TMP/bad.log" "$TMP/a/events/java.ndjson" >/dev/null 2>&1; then
	not_ok "a log with one amount changed fails the check" "check-ledger.py passed it"
else
	ok "a log with one amount changed fails the check"
fi

run b 2 12 || not_ok "a second capture" "$(tail -n 2 "$TMP/b.err")"
same_bytes "two runs: the same events" "$TMP/a/events/java.ndjson" "$TMP/b/events/java.ndjson"
same_bytes "two runs: the same records" "$TMP/a/raw/java.ndjson" "$TMP/b/raw/java.ndjson"

M=$TMP/a/MANIFEST.json
spec_sha=$(sha256sum "$D/ledger.probes" | cut -d' ' -f1)
if [ "$(jq -r .environment.spec_sha256 "$M")" = "$spec_sha" ] &&
   [ "$(jq -c '[.jvms, .records, .events.Apply, .events.Decided, .events.Applied, .events.Total, .losses.messages_lost]' "$M")" = "[1,38,12,12,12,1,0]" ]; then
	ok "manifest: the spec's sha256, one JVM, 38 records, the events counted, nothing lost"
else
	not_ok "manifest: the spec's sha256, the counts" "$(jq -c '{environment,jvms,records,events,losses}' "$M")"
fi
# Threads numbered in their JVM (1, 2) in the order they first recorded.
threads=$(jq -s -c '[.[] | select(.site >= 0) | .goid] | unique' "$TMP/a/raw/java.ndjson")
if [ "$threads" = "[1,2,3]" ]; then   # the two workers, then main's total()
	ok "raw/: threads numbered 1 to 3, no thread id"
else
	not_ok "raw/: threads numbered 1 to 3" "$threads"
fi

$CAPTURE jvm --describe Ledger -- java -cp "$CLS" -version >"$TMP/class.txt" 2>"$TMP/d.err"
if grep -q '^class Ledger$' "$TMP/class.txt" &&
   grep -Eq '^    accounts +Ledger\$Account\[\] \(an array' "$TMP/class.txt" &&
   grep -Eq '^    ops +java.util.concurrent.atomic.AtomicLong \(i64: its value\)' "$TMP/class.txt" &&
   grep -Eq '^    applied +java.util.Map \(len\(X\)\)' "$TMP/class.txt" &&
   grep -Eq '^    apply\(LLedger\$Op;\)Z  lines [0-9]+-[0-9]+$' "$TMP/class.txt"; then
	ok "--describe of a class: its fields as a spec reads them, its methods"
else
	not_ok "--describe of a class" "$(cat "$TMP/d.err" "$TMP/class.txt" | head -n 12)"
fi
$CAPTURE jvm --describe Ledger.apply -- java -cp "$CLS" -version >"$TMP/m.txt" 2>"$TMP/d.err"
if grep -q '^func Ledger.apply(LLedger$Op;)Z$' "$TMP/m.txt" &&
   grep -q 'probe: entry (its first instruction), 1 return at line' "$TMP/m.txt" &&
   grep -Eq '^    op +Ledger\$Op  argument$' "$TMP/m.txt" &&
   grep -Eq '^    ok +boolean \(bool\)  lines 80-[0-9]+$' "$TMP/m.txt" &&
   grep -Eq 'lines with code.* 80 ' "$TMP/m.txt" &&
   grep -Eq '^    this.frozen +boolean \(bool\)$' "$TMP/m.txt"; then
	ok "--describe of a method: its sites, arguments, locals with their lines, this's fields"
else
	not_ok "--describe of a method" "$(cat "$TMP/d.err" "$TMP/m.txt" | head -n 12)"
fi
$CAPTURE jvm --describe Ledger.apply -- java -cp "$CLS" -version >"$TMP/m2.txt" 2>/dev/null
same_bytes "--describe: the same text twice" "$TMP/m.txt" "$TMP/m2.txt"
expect_exit 3 "--describe of a method the class lacks" 'Ledger.aply: no method aply in Ledger' \
	$CAPTURE jvm --describe Ledger.aply -- java -cp "$CLS" -version

spec() {   # spec NAME LINE...: a spec file of these lines
	local name=$1; shift
	printf '%s\n' "$@" >"$TMP/$name.probes"
}
refused() {   # refused NAME PATTERN: exit 3, the message, nothing written
	expect_exit 3 "refused: $1" "$2" \
		$CAPTURE jvm --probes "$TMP/$1.probes" -o "$TMP/out-$1" -- java -cp "$CLS" Ledger
	nothing_left "nothing written: $1" "$TMP/out-$1"
}
spec method 'func Ledger.aply' 'entry A' '	x i32 op.id'
refused method 'method.probes:1: Ledger.aply: no method aply in Ledger \(did you mean apply\?\)'
spec field 'func Ledger.apply' 'entry A' '	x i64 op.amout'
refused field 'field.probes:3: op.amout: Ledger\$Op has no field amout \(did you mean amount\?\)'
spec local 'func Ledger.apply' 'entry A' '	x i64 fee'
refused local 'local.probes:3: fee: no local fee at line [0-9]+ \(there: this, op\)'
spec size 'func Ledger.apply' 'entry A' '	x i64 op.id'
refused size 'size.probes:3: op.id is int \(as i32\), not i64: the sizes or kinds differ'
spec result 'func Ledger.apply' 'return A' '	x bool ~r0'
refused result 'result.probes:3: ~r0: a Java method.s result is on the operand stack'
spec object 'func Ledger.apply' 'entry A' '	x i64 op'
refused object 'object.probes:3: op is an object \(Ledger\$Op\): read a field of it'
spec string 'func Ledger.apply' 'entry A' '	x i64 op.memo'
refused string 'string.probes:3: op.memo is a String: read it as str'
spec table 'names kind DEPOSIT WITHDRAW' 'func Ledger.apply' 'entry A' '	x kind op.kind'
refused table 'table.probes:4: op.kind: constant TRANSFER of enum Ledger\$Kind is not in the field.s names table'
spec thread 'func Ledger.apply' 'entry A' '	x i64 op.amount as thread'
refused thread 'thread.probes:3: as thread: this runtime has no thread ids to index'
spec noline 'func Ledger.apply:2' 'entry A' '	x i32 op.id'
refused noline 'noline.probes:1: Ledger.apply:2: no code at line 2 of apply \(its lines: [0-9]+ to [0-9]+\)'
spec lineret 'func Ledger.apply:80' 'return A' '	x i32 op.id'
refused lineret 'lineret.probes:2: Ledger.apply:80: a line is a place, not a call'
spec loop 'func Ledger.rounds' 'entry A' '	n i32 n'
refused loop 'loop.probes:1: Ledger.rounds: its first instruction is a loop.s head'
spec static 'func Ledger.total' 'entry A' '	x bool this.frozen'
refused static 'static.probes:3: this.frozen: the method is static: it has no this'
spec noclass 'func Ledgr.apply' 'entry A' '	x i32 op.id'
refused noclass 'noclass.probes:1: Ledgr.apply: no class Ledgr on the JVM.s class path'
spec cast 'func Ledger.apply' 'entry A' '	x i64 this.audit.(Nope).limit'
refused cast 'cast.probes:3: this.audit.\(Nope\).limit: .\(Nope\): no such class'

ledger() {   # ledger NAME ARGS...: the ledger's capture, its exit and stderr checked by the caller
	local name=$1; shift
	$CAPTURE jvm --probes "$D/ledger.probes" -o "$TMP/$name" -- java -cp "$CLS" Ledger "$@"
}
expect_exit 6 "a program exiting non-zero fails the capture" 'java exited with status 4' ledger exit 2 4 exit
if [ -s "$TMP/exit.failed/events/java.ndjson" ] && [ -s "$TMP/exit.failed/FAILURE" ]; then
	ok "a failed run keeps what it captured in DIR.failed/"
else
	not_ok "a failed run keeps what it captured in DIR.failed/" "$(ls -R "$TMP/exit.failed" 2>&1 | head -n 5)"
fi
expect_exit 6 "a JVM killed (its agent's last message never comes) fails the capture" \
	"JVM [0-9]+ ended without its agent's last message" ledger kill 2 4 kill
expect_exit 2 "a command that starts no JVM is a usage error" 'true started no JVM with the agent' \
	$CAPTURE jvm --probes "$D/ledger.probes" -o "$TMP/none" -- true
nothing_left "nothing written: no JVM" "$TMP/none"
