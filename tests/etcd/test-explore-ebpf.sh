#!/bin/bash
# capture etcd --explore --via ebpf: the tries run on the plain harness in
# one process under raft's probes (-serve), the classes from what the
# probes saw.  Unguided, it keeps the trace path's scenarios byte for byte
# on both attach paths; guided, it reads raft's coverage per try, is
# deterministic and verifies; the harness's -serve mode survives a refused
# try; --merge replays through the probed harness, the with_tla
# replays' corpus.
# needs: root btf go goproxy
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/etcd/paths.sh"
export PATH=$PATH:/usr/local/go/bin

# both_paths NAME OUT ARGS...: capture ARGS by trace into $TMP/OUTt and
# by eBPF into $TMP/OUTe, its tries in one probed harness and no work
# file left; both keep the same scenarios and windows.
mkdir "$TMP/work"
both_paths() {
	local name=$1 t=$TMP/${2}t e=$TMP/${2}e
	shift 2
	check "$name (trace)" "$CAPTURE" "$@" --via trace -o "$t"
	TMPDIR="$TMP/work" "$CAPTURE" "$@" --via ebpf -o "$e" >/dev/null 2>"$e.err" &&
		ok "$name (ebpf)" || not_ok "$name (ebpf)" "$(tail -n 3 "$e.err")"
	grep -q 'explore: tries through one probed harness' "$e.err" &&
		ok "$name: the tries ran in one probed harness" ||
		not_ok "$name: the tries ran in one probed harness" "$(grep explore: "$e.err" | head -n 2)"
	[ -z "$(ls -A "$TMP/work")" ] && ok "$name: the probed run leaves no work files" ||
		not_ok "$name: the probed run leaves no work files" "$(ls "$TMP/work")"
	for d in scenarios etcd; do
		if diff -r "$t/$d" "$e/$d" >"$TMP/diff" 2>&1; then
			ok "$name: the eBPF tries keep the trace path's $d, byte for byte"
		else
			not_ok "$name: eBPF $d = trace $d" "$(head -n 3 "$TMP/diff")"
		fi
	done
}

U="etcd --explore --unguided --seed 2 --budget 16"
both_paths "unguided explore" u $U
bad=
for f in "$TMP/ue"/raw/*.ndjson; do
	cmp -s <(project "$TMP/ut/raw/${f##*/}") <(probed "$f") || bad="$bad ${f##*/}"
done
[ -z "$bad" ] && ok "unguided: the eBPF events are upstream's with_tla events" ||
	not_ok "unguided: eBPF events = projected with_tla events" "differ:$bad"
check "unguided explore (ebpf, perf-event uprobes)" \
	env CAPTURE_UPROBE=perf "$CAPTURE" $U --via ebpf -o "$TMP/up"
if diff -r -x MANIFEST.json "$TMP/ue" "$TMP/up" >"$TMP/diff" 2>&1; then
	ok "both attach paths give the same corpus"
else
	not_ok "both attach paths give the same corpus" "$(head -n 3 "$TMP/diff")"
fi

G="etcd --explore --seed 3 --budget 24 --via ebpf"
"$CAPTURE" $G -o "$TMP/g" >/dev/null 2>"$TMP/g.err" && ok "guided explore (ebpf)" ||
	not_ok "guided explore (ebpf)" "$(tail -n 3 "$TMP/g.err")"
set -- $(sed -n 's/.*explore: raft units run \([0-9]*\)\/\([0-9]*\), (unit, hit count) pairs \([0-9]*\); \([0-9]*\) parents.*/\1 \2 \3 \4/p' "$TMP/g.err")
if [ $# = 4 ] && [ "$1" -gt 0 ] && [ "$1" -le "$2" ] && [ "$3" -ge "$1" ] && [ "$4" -gt 0 ]; then
	ok "the probed tries read raft's coverage ($1/$2 units, $3 pairs, $4 parents)"
else
	not_ok "the probed tries read raft's coverage" "$(grep 'explore: raft units' "$TMP/g.err")"
fi
cp -r "$TMP/g" "$TMP/g1"
check "guided explore (ebpf) again" "$CAPTURE" $G -o "$TMP/g"
if diff -r "$TMP/g1" "$TMP/g" >"$TMP/diff" 2>&1; then
	ok "the same seed gives the same eBPF corpus, byte for byte"
else
	not_ok "the same seed gives the same eBPF corpus" "$(head -n 3 "$TMP/diff")"
fi
check "verify the eBPF-explored corpus" "$CAPTURE" verify --trust "$TMP/g"

# --merge by eBPF replays through the probed harness too: the same corpus
# as the with_tla replays; a refused scenario still fails at its file.
both_paths merge m etcd --merge "$TMP/ut" "$TMP/g"
mkdir -p "$TMP/refused/scenarios"
printf 'config election-tick 3\nelect 1 2 3\ntick 2\ntick 2\ntick 2\n' \
	>"$TMP/refused/scenarios/001-explored"
expect_exit 3 "merge (ebpf): a refused scenario fails at its file" \
	'001-explored:5: tick 2: .*|001-explored: bad scenario' \
	"$CAPTURE" etcd --merge "$TMP/refused" --via ebpf -o "$TMP/mr"
[ ! -e "$TMP/mr" ] && ok "merge (ebpf): nothing written on a refusal" ||
	not_ok "merge (ebpf): nothing written on a refusal" "$(ls "$TMP/mr")"

# -serve: a refused try ends that try (status 3), not the harness.
h=$TMP/harness
if go -C "$ROOT/scenarios/etcd" build -trimpath -buildvcs=false -mod=readonly \
	-o "$h" . 2>"$TMP/go.err"; then
	printf 'config election-tick 3\nelect 1 2 3\ntick 2\ntick 2\ntick 2\n' >"$TMP/01-ticks"
	printf '\t\t%s\n\tquiet\t%s\n\t\t%s\n' "$TMP/01-ticks" "$TMP/01-ticks" \
		"$ROOT/scenarios/etcd/01-election" | "$h" -serve >"$TMP/serve.out" 2>"$TMP/serve.err"
	rc=$?
	[ $rc = 0 ] && [ ! -s "$TMP/serve.out" ] &&
		[ "$(grep -c '01-ticks:5: tick 2: node 2 has ticked 2' "$TMP/serve.err")" = 1 ] &&
		ok "-serve: a refused try says why once (not when quiet), the next runs" ||
		not_ok "-serve refusals" "rc $rc: $(cat "$TMP/serve.err")"
	expect_exit 2 "-serve: a try line without its fields" 'want COVERDIR' \
		sh -c "echo x | $h -serve"
else
	not_ok "build the harness" "$(tail -n 2 "$TMP/go.err")"
fi

# -serve's counters of a try are those of a fresh process under GOCOVERDIR.
hc=$TMP/harness-cover
if go -C "$ROOT/scenarios/etcd" build -trimpath -buildvcs=false -mod=readonly 	-cover -covermode=atomic -coverpkg=.,go.etcd.io/raft/v3 -o "$hc" . 2>"$TMP/go.err"; then
	mkdir "$TMP/fresh" "$TMP/first" "$TMP/second"
	GOCOVERDIR=$TMP/fresh "$hc" "$ROOT/scenarios/etcd/02-proposal"
	printf '%s		%s
' "$TMP/first" "$ROOT/scenarios/etcd/05-second-election" 		"$TMP/second" "$ROOT/scenarios/etcd/02-proposal" | "$hc" -serve
	counts() { go tool covdata textfmt -i="$1" -pkg go.etcd.io/raft/v3 -o /dev/stdout | sort; }
	if [ "$(counts "$TMP/fresh" | wc -l)" -gt 100 ] &&
		cmp -s <(counts "$TMP/fresh") <(counts "$TMP/second"); then
		ok "-serve: a try's raft counters are a fresh process's"
	else
		not_ok "-serve: a try's raft counters are a fresh process's" \
			"$(diff <(counts "$TMP/fresh") <(counts "$TMP/second") | head -n 3)"
	fi
else
	not_ok "build the covered harness" "$(tail -n 2 "$TMP/go.err")"
fi
