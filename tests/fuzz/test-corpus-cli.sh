#!/usr/bin/env bash
# The checked-in fuzz corpora again, through the commands users run: each
# input goes to the sanitizer build of capture (ASan, UBSan and, as in
# every test here, LeakSanitizer) by the command whose reader its harness
# fuzzes.  The harnesses cannot check leaks (a reader that dies returns to
# them with what exit() frees still allocated); capture's own exits can.
# Each run must end with an exit code capture documents, without a
# sanitizer report.
# needs: expensive
. "$(dirname "$0")/../lib.sh"
cd "$ROOT"

# run NAME CMD...: exit 0, 2, 3, 4, 5 or 6, and no sanitizer's report.
run() {
	local name=$1 rc=0; shift
	"$@" >/dev/null 2>"$TMP/err" || rc=$?
	case $rc in 0|2|3|4|5|6) ;; *) echo "$name: exit $rc"; return ;; esac
	if grep -Eq 'ERROR: (Leak|Address)Sanitizer|runtime error:' "$TMP/err"; then
		echo "$name: $(grep -Em1 'ERROR: |runtime error:' "$TMP/err")"
	fi
}

# pgo_dir IN DIR [FROM]: a PGo input's trace files (fuzz-pgo's: "SYSTEM\n"
# first, FROM 2; a task folder's: none, FROM 1) split at lines "--", each
# named trace-SELF-I.log for the first "self" in it, as the harnesses do.
pgo_dir() {
	local in=$1 dir=$2
	rm -rf "$dir" && mkdir -p "$dir"
	tail -n +"${3:-2}" "$in" | awk -v d="$dir" '
		function flush(  self) {
			self = i + 0
			if (match(part, /"self":"[A-Za-z0-9]+"/))
				self = substr(part, RSTART + 8, RLENGTH - 9)
			printf "%s", part >(d "/trace-" self "-" (i + 0) ".log")
			part = ""; i++
		}
		$0 == "--" { flush(); next }
		{ part = part $0 "\n" }
		END { flush() }'
}

# parts IN DIR: a canonical input's part-I.ndjson files, split at lines
# "--" as fuzz-canonical does.
parts() {
	rm -rf "$2" && mkdir -p "$2"
	awk -v d="$2" '$0 == "--" { i++; next } { printf "%s\n", $0 >(d "/part-" (i + 0) ".ndjson") }
		END { if (!NR) printf "" >(d "/part-0.ndjson") }' "$1"
}

# harness INPUT: the commands that read what the harness fuzzes.
replay() {
	local h=$1 in=$2 name="$1/$(basename "$2")" sys
	case $h in
	spin | etcd | rwlock | spin-task | etcd-task | etcd-entries | rwlock-task)
		run "$name" "$CAPTURE" check "$h" "$in" ;;
	dqueue-task | raftkvs-task)
		pgo_dir "$in" "$TMP/pgo" 1
		run "$name" "$CAPTURE" check "$h" "$TMP/pgo" ;;
	ndjson)
		run "$name" "$CAPTURE" check etcd "$in" ;;
	json-tokens)
		mkdir -p "$TMP/tok" && cp "$in" "$TMP/tok/trace-0-0.log"
		run "$name" "$CAPTURE" check locksvc "$TMP/tok" ;;
	pgo)
		sys=$(head -n 1 "$in")
		case $sys in locksvc | dqueue | raftkvs) ;; *) return ;; esac
		pgo_dir "$in" "$TMP/pgo"
		run "$name" "$CAPTURE" check "$sys" "$TMP/pgo" ;;
	window-read)
		# "ITF\n" first: an ITF trace, which its file name marks
		if [ "$(head -c 4 "$in")" = "ITF" ]; then
			tail -c +5 "$in" >"$TMP/in.itf.json"
			in=$TMP/in.itf.json
		fi
		for form in event stream; do
			rm -f "$TMP/out.ndjson"
			run "$name ($form)" "$CAPTURE" convert --form $form "$in" "$TMP/out.ndjson"
		done ;;
	canonical)
		parts "$in" "$TMP/canon"
		rm -rf "$TMP/canon-out"
		run "$name" "$CAPTURE" convert --form event "$TMP/canon" "$TMP/canon-out" ;;
	audit)
		cp "$in" "$TMP/windows.ndjson"
		run "$name" "$CAPTURE" audit --force --svg "$TMP/audit.svg" "$TMP/windows.ndjson" ;;
	gospec)
		# The spec is parsed before the command is looked for: exit 3
		# for a bad spec, 2 (no such command) for a good one.
		run "$name" "$CAPTURE" go --probes "$in" -o "$TMP/go" -- /nonexistent/prog ;;
	projection)
		# the spec, a line "--", the events: capture check SPEC EVENTS
		awk -v d="$TMP" 'f { print >(d "/events.ndjson"); next }
			$0 == "--" { f = 1; next } { print >(d "/spec.probes") }' "$in"
		touch "$TMP/spec.probes" "$TMP/events.ndjson"
		run "$name" "$CAPTURE" check "$TMP/spec.probes" "$TMP/events.ndjson"
		rm -f "$TMP/spec.probes" "$TMP/events.ndjson" ;;
	manifest)
		rm -rf "$TMP/corpus" && mkdir -p "$TMP/corpus" && cp "$in" "$TMP/corpus/MANIFEST.json"
		run "$name (audit)" "$CAPTURE" audit "$TMP/corpus"
		run "$name (check)" "$CAPTURE" check "$TMP/corpus" ;;
	*)
		echo "$name: no command replays harness $h (test-corpus-cli.sh)" ;;
	esac
}

for dir in tests/fuzz/corpus/*/; do
	h=$(basename "$dir")
	# Go's coverage files are read only by the exploration, the live
	# stream's causal check only by etcd --live (root, Go, a cluster), a
	# grader's verdicts only by grade (a grader): test-corpus.sh replays
	# them in their harnesses.
	case $h in gocover | messages | verdict) continue ;; esac
	n=0
	: >"$TMP/bad"
	for in in "$dir"*; do
		replay "$h" "$in" >>"$TMP/bad"
		n=$((n + 1))
	done
	if [ -s "$TMP/bad" ]; then
		not_ok "fuzz corpus $h through capture (LeakSanitizer on)" "$(head -n 3 "$TMP/bad")"
	else
		ok "fuzz corpus $h through capture, $n inputs (LeakSanitizer on)"
	fi
done
