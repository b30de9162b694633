# PGo recorder logs (capture/readers/pgo.c, locksvc.c, dqueue.c) on the real runs in
# reference/pgo-traces: every run folds and passes its checks, twice
# byte-identical, counts agree with a jq count over the raw records; and
# corrupted copies of real runs are refused (exit code, file:line, nothing
# written).
# needs: reference jq python3
source "$(dirname "$0")/../lib.sh"
pgo=$REF/pgo-traces
locksvc_runs=("$pgo"/locksvc/*/)
dqueue_runs=("$pgo"/dqueue/*/)
[ ${#locksvc_runs[@]} = 8 ] && ok "8 locksvc runs present" ||
	not_ok "8 locksvc runs present" "found ${#locksvc_runs[@]} in $pgo/locksvc"
[ ${#dqueue_runs[@]} = 2 ] && ok "2 dqueue runs present" ||
	not_ok "2 dqueue runs present" "found ${#dqueue_runs[@]} in $pgo/dqueue"

for run in "${locksvc_runs[@]}"; do
	check "locksvc $(basename "$run") passes every check" \
		"$CAPTURE" check locksvc "$run"
done
for run in "${dqueue_runs[@]}"; do
	check "dqueue $(basename "$run") passes every check" \
		"$CAPTURE" check dqueue "$run"
done

# fold SYSTEM DIR RUN...: a corpus of all runs.
fold() { local sys=$1 out=$2; shift 2; "$CAPTURE" fold "$sys" "$@" -o "$out" >/dev/null; }
for sys in locksvc dqueue; do
	eval "runs=(\"\${${sys}_runs[@]}\")"
	fold "$sys" "$TMP/$sys-a" "${runs[@]}" && fold "$sys" "$TMP/$sys-b" "${runs[@]}" &&
		diff -r "$TMP/$sys-a" "$TMP/$sys-b" >"$TMP/diff" &&
		ok "$sys: folding twice is byte-identical" ||
		not_ok "$sys: folding twice is byte-identical" "$(head -n 5 "$TMP/diff")"
done

# committed records of ARCHETYPE whose .pc write left LABEL, over all runs.
committed() { # SYSTEM LABEL [extra jq condition]
	cat "$pgo/$1"/*/trace-*.log | jq -c --arg l "\"$2\"" "select(.isAbort == false)
		| select(any(.csElements[]; .tag == \"write\" and .name.name == \".pc\" and .oldValue == \$l))
		${3:+| select($3)}" | wc -l
}
# count SYSTEM ACTION: windows of ACTION in the manifest.
count() { jq ".counts.$2 // 0" "$TMP/$1-a/MANIFEST.json"; }
expect_count() { # SYSTEM ACTION EXPECTED
	local got; got=$(count "$1" "$2")
	[ "$got" = "$3" ] && [ "$3" -gt 0 ] && ok "$1: $2 windows = $3 committed steps" ||
		not_ok "$1: $2 windows = committed steps" "folded $got, the records have $3"
}
grant='any(.csElements[]; .tag == "write" and .name.name == "network" and .value == "3")'
expect_count locksvc ClientLockRequest "$(committed locksvc AClient.acquireLock)"
expect_count locksvc ServerGrantLock "$(committed locksvc AServer.serverRespond "$grant")"
expect_count locksvc ClientCriticalSection "$(committed locksvc AClient.criticalSection)"
expect_count locksvc ClientUnlockRequest "$(committed locksvc AClient.unlock)"
expect_count dqueue ConsumerRequest "$(committed dqueue AConsumer.c1)"
expect_count dqueue ProducerSend "$(committed dqueue AProducer.p2)"
expect_count dqueue ConsumerProcess "$(committed dqueue AConsumer.c2)"
for sys in locksvc dqueue; do
	want=$(cat "$pgo/$sys"/*/trace-*.log | jq -c 'select(.isAbort)' | wc -l)
	got=$(jq '[.runs[].info.aborted_sections_dropped] | add' "$TMP/$sys-a/MANIFEST.json")
	[ "$got" = "$want" ] && [ "$want" -gt 0 ] &&
		ok "$sys: $want aborted sections dropped and counted in the manifest" ||
		not_ok "$sys: aborted sections counted" "manifest says $got, records have $want"
done

# The windows are in the reference corpus's stream form.
first=$(head -n 1 "$TMP/locksvc-a/locksvc/$(basename "${locksvc_runs[0]}").ndjson")
[ "$first" = "$(head -n 1 "$REF/sysmobench-corpora/locksvc/locksvc_run01.ndjson")" ] &&
	ok "locksvc seed line matches the reference corpus" ||
	not_ok "locksvc seed line matches the reference corpus" "$first"
python3 - "$TMP/locksvc-a/locksvc" <<'PY' && ok "locksvc windows: holder/waiters follow each action" ||
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*.ndjson"):
    lines = [json.loads(l) for l in open(path)]
    pre = lines[0]["state"]
    for w in lines[1:]:
        c, post, a = w["data"]["client"], w["state"], w["action"]
        ok = {
            "ClientLockRequest": post["waiters"] == sorted(pre["waiters"] + [c]) and post["holder"] == pre["holder"],
            "ServerGrantLock": pre["holder"] is None and post["holder"] == c and post["waiters"] == [x for x in pre["waiters"] if x != c],
            "ClientCriticalSection": post == pre and pre["holder"] == c,
            "ClientUnlockRequest": pre["holder"] == c and post["holder"] is None and post["waiters"] == pre["waiters"],
        }[a]
        assert ok, (path, w)
        pre = post
PY
	not_ok "locksvc windows: holder/waiters follow each action" "see the assertion above"

# Corrupted copies of a real run.  Each: exit code, file:line, no corpus.
src=${locksvc_runs[0]%/}
corrupt() { rm -rf "$TMP/bad"; cp -r "$src" "$TMP/bad"; chmod -R u+w "$TMP/bad"; }
refused() { # CODE NAME PATTERN [DIR]
	rm -rf "$TMP/badout" "$TMP"/badout.tmp-*   # each check on its own
	expect_exit "$1" "$2" "$3" "$CAPTURE" fold locksvc "${4:-$TMP/bad}" -o "$TMP/badout"
	nothing_left "$2: nothing written" "$TMP/badout"
}
server() { echo "$TMP"/bad/trace-0-*.log; }

corrupt
sed -i '2{h;d};3{G}' "$(server)"       # swap lines 2 and 3
refused 4 "lines swapped against the vector clocks" 'trace-0-[0-9]+\.log:2: .*own clock'

corrupt   # a client's critical section that read no grant
python3 - "$TMP"/bad/trace-1-*.log <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    r = json.loads(l)
    if any(e["tag"] == "write" and e["name"]["name"] == ".pc" and e.get("oldValue") == '"AClient.criticalSection"' for e in r["csElements"]):
        r["csElements"] = [e for e in r["csElements"] if e["name"]["name"] != "network"]
        lines[i] = json.dumps(r, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
line=$(grep -n 'AClient.criticalSection\\"","tag":"write' "$TMP"/bad/trace-1-*.log | cut -d: -f1)
refused 4 "critical section that read no grant" "trace-1-[0-9]+\\.log:$line: critical section of client 1 did not read a grant"

corrupt   # the server's grant to client 1 never sent: its critical section has no grant
python3 - "$(server)" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    r = json.loads(l)
    for e in r["csElements"]:
        if e["name"]["name"] == "network" and e["tag"] == "write" and e["indices"] == ["1"]:
            e["value"] = "2"
            lines[i] = json.dumps(r, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
line=$(grep -n 'AClient.criticalSection\\"","tag":"write' "$TMP"/bad/trace-1-*.log | cut -d: -f1)
refused 4 "critical section without its grant" "trace-1-[0-9]+\\.log:$line: critical section of client 1 is not preceded by the grant"

corrupt
f=$(echo "$TMP"/bad/trace-2-*.log)
n=$(wc -l <"$f")
head -c -40 "$f" >"$TMP/cut" && mv "$TMP/cut" "$f"   # cut inside the last line
refused 3 "truncated JSON line" "trace-2-[0-9]+\\.log:$n:"

corrupt
rm "$TMP"/bad/trace-3-*.log
refused 4 "missing process file" 'trace-[0-9]+-[0-9]+\.log:[0-9]+: depends on event [0-9]+ of AClient 3, but the run has no trace file'

corrupt   # a clock entry for a process of a long name: named whole
python3 - "$TMP"/bad/trace-1-*.log <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[3])
r["clock"].append([["B" * 300, "7"], 1])
lines[3] = json.dumps(r, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
refused 4 "a missing process of a long name, named whole" \
	"trace-1-[0-9]+\\.log:4: depends on event 1 of B{300} 7, but the run has no trace file for B{300} 7\$"

corrupt   # a client log that stops early: later events depend on the lost ones
f=$(echo "$TMP"/bad/trace-5-*.log)
head -n 2 "$f" >"$TMP/cut" && mv "$TMP/cut" "$f"
refused 4 "event missing from a process file" 'depends on event [0-9]+ of AClient 5, but .*trace-5-[0-9]+\.log ends after 2 records'

mkdir "$TMP/notrun" && echo hello >"$TMP/notrun/README"
expect_exit 3 "a directory without trace files" 'notrun: no trace-\*\.log files' "$CAPTURE" check locksvc "$TMP/notrun"

corrupt   # a critical section that read something else than a grant
python3 - "$TMP"/bad/trace-1-*.log <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    r = json.loads(l)
    if any(e["tag"] == "write" and e["name"]["name"] == ".pc" and e.get("oldValue") == '"AClient.criticalSection"' for e in r["csElements"]):
        for e in r["csElements"]:
            if e["tag"] == "read" and e["name"]["name"] == "network":
                e["value"] = "2"
        lines[i] = json.dumps(r, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
line=$(grep -n 'AClient.criticalSection\\"","tag":"write' "$TMP"/bad/trace-1-*.log | cut -d: -f1)
refused 4 "critical section that read another message" \
	"trace-1-[0-9]+\\.log:$line: critical section of client 1 did not read a grant in its step \\(network\\[1\\] = 2, a grant is 3\\)"

# Input the window writer would refuse dies in the reader, at its line:
# on the first record of a file (read to identify the process) and on
# the records read ahead.
corrupt
f=$(echo "$TMP"/bad/trace-1-*.log)
sed -i '1s/"tag":"read"/"tag":"read","note":"\xff"/' "$f"
refused 3 "invalid UTF-8 in a first record" 'trace-1-[0-9]+\.log:1: invalid UTF-8 in a JSON string'
corrupt
sed -i '3s/"tag":"read"/"tag":"read","note":"\xc0\xaf"/' "$(server)"
refused 3 "an overlong UTF-8 form in a record read ahead" 'trace-0-[0-9]+\.log:3: invalid UTF-8 in a JSON string'
corrupt
sed -i '5s/"isAbort":false/"isAbort":false,"note":1e999/' "$(server)"
refused 3 "a number that is not finite" 'trace-0-[0-9]+\.log:5: a JSON number out of range'

# Client ids index arrays: a huge one is bad input, not an allocation.
corrupt
f=$(echo "$TMP"/bad/trace-5-*.log)
sed -i 's/"5"/"9000000000000"/g' "$f"
sed -i 's/\["AClient","5"\]/["AClient","9000000000000"]/g' "$TMP"/bad/trace-*.log
mv "$f" "$TMP/bad/trace-9000000000000-${f##*-}"
refused 3 "a client id too large" 'trace-9000000000000-[0-9]+\.log:[0-9]+: client id of AClient 9000000000000 is 9000000000000, above 4096'

# A run whose processes committed nothing has no ground truth to give.
mkdir "$TMP/norecords" && : >"$TMP/norecords/trace-0-1.log"
refused 4 "a run without a committed record" 'norecords: no committed records' "$TMP/norecords"

# Concurrent heads go in process order: numeric selfs first, in numeric
# order, then the others in byte order ("9" < "10" < "1a"): the first one
# folded is the first to die here.
mkdir "$TMP/order"
for s in 9 10 1a; do
	printf '{"archetypeName":"AClient","clock":[[["AClient","%s"],1]],"csElements":[{"indices":[],"name":{"name":".pc","prefix":"","self":"%s"},"oldValue":"\\"AClient.bogus\\"","tag":"write","value":"\\"x\\""}],"isAbort":false,"self":"%s"}\n' \
		"$s" "$s" "$s" >"$TMP/order/trace-$s-1.log"
done
refused 3 "concurrent heads in process order" 'trace-9-1\.log:1: ' "$TMP/order"

# A process name must be one a C string holds.
corrupt
sed -i '1s/"isAbort":false,"self":"0"/"isAbort":false,"self":"0\\u0000"/' "$(server)"
refused 3 "a process name with a NUL character" 'trace-0-[0-9]+\.log:1: PGo record whose "self" holds a NUL character'
