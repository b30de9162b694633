#!/bin/bash
# capture etcd: real etcd raft under real eBPF uprobes (root, as `make test`
# runs), against the reference corpus and against upstream's with_tla trace.
# needs: root btf go goproxy reference
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/etcd/paths.sh"
export PATH=$PATH:/usr/local/go/bin
REFDIR=$REF/sysmobench-corpora/etcd
HARNESS=$ROOT/build/etcd/harness
AUX='"action": "(BecomeLeader|BecomeFollower|Commit)"'


# Target windows only (auxiliary lines are the folder's derivation).
targets() { grep -Ev "$AUX" "$1"; }

check "ebpf capture of all scenarios" $CAPTURE etcd --scenario all -o "$TMP/a"

for i in 1 2 3 4 5; do
	f=$(ls "$TMP"/a/etcd/0$i-*.ndjson 2>/dev/null)
	if [ -z "$f" ]; then
		not_ok "run $i target windows" "no window file for scenario 0$i"
	elif cmp -s <(targets "$f") <(targets "$REFDIR/etcd_run0$i.ndjson"); then
		ok "run $i target windows identical to the reference corpus"
	else
		not_ok "run $i target windows" "$(diff <(targets "$f") <(targets "$REFDIR/etcd_run0$i.ndjson") | head -n 3)"
	fi
done

counts=$(cat "$TMP"/a/etcd/*.ndjson 2>/dev/null | grep -o '"action": "[A-Za-z]*"' | sort | uniq -c |
	 awk '{print $3 "=" $1}' | tr -d '"' | grep -Ev '^(BecomeLeader|BecomeFollower|Commit)=' | tr '\n' ' ')
if [ "$counts" = "ClientProposal=8 ElectionTimeout=8 HandleAppendEntries=57 HandleHeartbeat=8 HandleVoteRequest=16 " ]; then
	ok "97 target windows per action as the reference"
else
	not_ok "97 target windows per action as the reference" "got: $counts"
fi

check "second ebpf capture" $CAPTURE etcd --scenario all -o "$TMP/b"
if diff -r "$TMP/a" "$TMP/b" >"$TMP/diff" 2>&1; then
	ok "two ebpf captures byte-identical (windows, events, raw, manifest)"
else
	not_ok "two ebpf captures byte-identical" "$(head -n 3 "$TMP/diff")"
fi

check "with_tla trace capture" $CAPTURE etcd --scenario all --via trace -o "$TMP/t"
same_paths "$TMP/a" "$TMP/t"

# Error cases: each a clear message, its exit code, no corpus left behind.
go -C "$ROOT/scenarios/etcd" build -trimpath -buildvcs=false -ldflags=-w \
	-o "$TMP/nodwarf" . 2>"$TMP/go.err" || not_ok "build harness without DWARF" "$(tail -n 2 "$TMP/go.err")"
expect_exit 3 "binary without DWARF refused" 'nodwarf: no DWARF' \
	$CAPTURE etcd --scenario election --binary "$TMP/nodwarf" -o "$TMP/x1"

mkdir -p "$TMP/hello"
printf 'package main\n\nfunc main() {}\n' >"$TMP/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$TMP/hello/go.mod"
GOTOOLCHAIN=local go -C "$TMP/hello" build -o "$TMP/hello/hello" . 2>"$TMP/go.err" ||
	not_ok "build a Go binary without raft" "$(tail -n 2 "$TMP/go.err")"
expect_exit 3 "missing function named" 'no function go\.etcd\.io/raft/v3\.' \
	$CAPTURE etcd --scenario election --binary "$TMP/hello/hello" -o "$TMP/x2"

expect_exit 3 "inlined target refused by name" 'raft\)\.hardState is inlined' \
	$CAPTURE etcd --binary "$HARNESS" --resolve 'go.etcd.io/raft/v3.(*raft).hardState'

expect_exit 6 "full ring buffer fails with the counts" '[1-9][0-9]* ring-buffer drops' \
	$CAPTURE etcd --scenario election --binary "$HARNESS" --ring-bytes 4096 --hold-ring -o "$TMP/x3"

printf 'campaign 1\ndeliver 2<-2\n' >"$TMP/bad-scenario"
expect_exit 3 "harness names a bad scenario line" 'bad-scenario:2: expected T<-F' \
	"$HARNESS" "$TMP/bad-scenario"

# "all" over scenarios that never propose: a target action without a window.
mkdir -p "$TMP/home/scenarios/etcd"
cp "$ROOT/scenarios/etcd/01-election" "$ROOT/scenarios/etcd/go.mod" "$TMP/home/scenarios/etcd/"
expect_exit 4 "all scenarios must give every target action" 'no ClientProposal window' \
	env CAPTURE_HOME="$TMP/home" $CAPTURE etcd --scenario all --binary "$HARNESS" -o "$TMP/x4"
[ ! -e "$TMP/x4" ] && ok "a capture missing an action leaves nothing" ||
	not_ok "a capture missing an action leaves nothing" "$(ls "$TMP")"

NOBODY=$(mktemp -d /tmp/capture-nobody-XXXXXX)
chmod 777 "$NOBODY"
expect_exit 5 "no BPF permission is an environment error" 'needs root' \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	$CAPTURE etcd --scenario election --binary "$HARNESS" -o "$NOBODY/c"
rm -rf "$NOBODY"

for x in x1 x2 x3; do
	if ls -d "$TMP/$x"* >/dev/null 2>&1; then
		not_ok "failed capture $x leaves nothing" "$(ls -d "$TMP/$x"*)"
	else
		ok "failed capture $x leaves nothing"
	fi
done
