#!/bin/bash
# The probe spec's reads of real Go values (docs/probe-spec.md, "Expressions"): a toy
# cluster (tests/go/nodes) whose nodes are named by strings of a named
# string type, traced by tests/go/nodes.probes and checked against its log;
# each refusal of these reads with exit 3, SPEC:LINE and nothing written.
# needs: root btf go python3
source "$(dirname "$0")/../lib.sh"
source "$TESTS_DIR/go/bank.sh"
GOTOOLCHAIN=local GOFLAGS=-mod=readonly $GO -C "$D/nodes" build -trimpath \
	-buildvcs=false -o "$TMP/nodes" . 2>"$TMP/go.err" ||
	not_ok "build the nodes" "$(tail -n 2 "$TMP/go.err")"

if $CAPTURE go --probes "$D/nodes.probes" -o "$TMP/n" -- "$TMP/nodes" >"$TMP/n.out" 2>"$TMP/n.err"; then
	ok "capture go of the nodes with nodes.probes"
else
	not_ok "capture go of the nodes with nodes.probes" "$(tail -n 2 "$TMP/n.err")"
fi
if out=$(python3 "$D/check-nodes.py" "$TMP/n/events/nodes.ndjson" "$TMP/n.out" 2>&1); then
	ok "strings by content, bounded, escaped; named strings and slices: as logged ($out)"
else
	not_ok "the nodes' events against their log" "$out"
fi
# The check can fail: one node's name changed in the log.
sed '1s/step node-a/step node-x/' "$TMP/n.out" >"$TMP/bad.log"
python3 "$D/check-nodes.py" "$TMP/n/events/nodes.ndjson" "$TMP/bad.log" >/dev/null 2>&1 &&
	not_ok "a log that differs fails the check" "check-nodes.py passed it" ||
	ok "a log that differs fails the check"
if grep -q '"node":"node-\\"q\\"\\\\é"' "$TMP/n/events/nodes.ndjson"; then
	ok "a string's quote and backslash escaped, its UTF-8 kept"
else
	not_ok "a string's quote and backslash escaped" "$(grep -m1 'q' "$TMP/n/events/nodes.ndjson")"
fi
# Bytes past a string's length are not in raw/: the words are masked.
if python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["site"] == 0 and r["val"][0] == 6 and r["val"][1] >> 48:
        sys.exit(1)' "$TMP/n/raw/nodes.ndjson"; then
	ok "raw/: the bytes after a string's end are 0"
else
	not_ok "raw/: the bytes after a string's end are 0" "$(sed -n 2p "$TMP/n/raw/nodes.ndjson")"
fi

S='func main.(*Node).step'
N=$TMP/nodes
# Slices of strings: [:N] elements, each bounded by its own [:B].
spec strslices "$S" 'entry Names' '	node str n.ID' '	known str n.Known[:4][:8]' \
	'	servers str n.Servers[:2].ID[:8]' '	addrs str n.Servers[:1].Addr[:16]'
if $CAPTURE go --probes "$TMP/strslices.probes" -o "$TMP/ss" -- "$N" >/dev/null 2>"$TMP/ss.err" &&
	out=$(python3 - "$TMP/ss/events/nodes.ndjson" 2>&1 <<'PY'
import json, sys
names = ["node-a", "node-b", "node-c", 'node-"q"\\é']
def bounded(t, n):
    b = t.encode()
    return t if len(b) <= n else {"first": b[:n].decode(errors="ignore"), "len": len(b)}
def first(xs, n):
    return xs if len(xs) <= n else {"first": xs[:n], "len": len(xs)}
seen = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    i = names.index(e["node"])
    want = {"known": [bounded(x, 8) for x in names],
            "servers": first([bounded(x, 8) for x in names[:i + 1]], 2),
            "addrs": first([x + ":80" for x in names[:i + 1]], 1)}
    got = {k: e[k] for k in want}
    if got != want:
        sys.exit(f"{e['node']}: got {got}, want {want}")
    seen += 1
print(f"{seen} events")
PY
); then
	ok "slices of strings and of structs' strings, each bounded ($out)"
else
	not_ok "slices of strings and of structs' strings" "${out:-$(tail -n 2 "$TMP/ss.err")}"
fi
spec strslicemany "$S" 'entry T' '	known str n.Known[:5][:32]'
refused strslicemany 'strslicemany.probes:3: event T reads more than 24 values \(a \[:5\] slice of strs of 32 bytes takes 26\)' "$N"
spec strslice3 "$S" 'entry T' '	x str n.Servers[:2].ID[:4].Addr'
refused strslice3 'strslice3.probes:3: .*one \[:N\] a field' "$N"
spec strint "$S" 'entry T' '	x str n.State.Term'
refused strint 'strint.probes:3: .*n\.State\.Term: uint64 is neither a string nor a \[\]byte' "$N"
spec strints "$S" 'entry T' '	x str n.Peers'
refused strints 'strints.probes:3: .*n\.Peers: main\.IDs is neither a string nor a \[\]byte' "$N"
spec strzero "$S" 'entry T' '	x str n.ID[:0]'
refused strzero 'strzero.probes:3: n\.ID\[:0\]: a str field ends in \[:N\], N from 1 to 128 bytes' "$N"
spec strlong "$S" 'entry T' '	x str n.ID[:129]'
refused strlong 'strlong.probes:3: n\.ID\[:129\]: a str field ends in \[:N\]' "$N"
spec strdef "$S" 'entry T' '	x str n.ID or 0'
refused strdef 'strdef.probes:3: or 0: a str read has no default' "$N"
spec strquoted "$S" 'entry T' '	x str n.ID as string'
refused strquoted 'strquoted.probes:3: as string: only integers' "$N"
spec strcalc "$S" 'entry T' '	x str n.ID' '	y i64 = x + 1'
refused strcalc 'strcalc.probes:4: x is a str: a computed field takes integers' "$N"
spec strby 'names K a b' "$S" 'entry K by x' '	x str n.ID'
refused strby 'strby.probes:3: by x: a str, and by takes an integer' "$N"
spec strtable 'names str a b'
refused strtable 'strtable.probes:1: table str: the name of a type' "$N"
spec strcalcstr "$S" 'entry T' '	x i64 n.Term' '	y str = x + 1'
refused strcalcstr 'strcalcstr.probes:4: a computed field is an integer or a bool' "$N"
spec strmany "$S" 'entry T' '	x str n.Addr[:128]' '	y str n.ID[:64]'
refused strmany 'strmany.probes:4: event T reads more than 24 values \(a str of 64 bytes takes 9\)' "$N"

# One instantiation of a generic function, by its type arguments.
spec oneput 'func main.Put[string,uint64]' 'return Put' '	puts i64 ~r0' '	key str k'
if $CAPTURE go --probes "$TMP/oneput.probes" -o "$TMP/one" -- "$N" >"$TMP/one.out" 2>"$TMP/one.err" &&
   [ "$(grep -c '^put ids' "$TMP/one.out")" = "$(grep -c '"Put"' "$TMP/one/events/nodes.ndjson")" ] &&
   [ "$(grep -c '^put ids 1 ' "$TMP/one.out")" = "$(grep -c '"puts":1,' "$TMP/one/events/nodes.ndjson")" ]; then
	ok "main.Put[string,uint64]: that instantiation only"
else
	not_ok "main.Put[string,uint64]: that instantiation only" "$(tail -n 2 "$TMP/one.err")"
fi
spec noinst 'func main.Put[bool,bool]' 'return Put' '	puts i64 ~r0'
refused noinst 'noinst.probes:1: .*no function main\.Put\[go\.shape\.bool,go\.shape\.bool\]' "$N"
spec genkind 'func main.Put' 'entry P' '	v i64 v'
# A generic function of more instantiations than a spec probes by its name
# (tests/go/shapes: 18): refused, exit 3, however many there are.
GOTOOLCHAIN=local GOFLAGS=-mod=readonly $GO -C "$D/shapes" build -trimpath \
	-buildvcs=false -o "$TMP/shapes" . 2>"$TMP/go.err" ||
	not_ok "build the shapes" "$(tail -n 2 "$TMP/go.err")"
spec manyinst 'func main.Keep' 'entry K' '	g u64 goid'
refused manyinst 'manyinst.probes:1: .*main\.Keep has 18 instantiations, more than 16: name one \(main\.Keep\[TYPES\]\)' \
	"$TMP/shapes"
spec oneinst 'func main.Keep[int8]' 'entry K' '	g u64 goid'
check "one of 18 instantiations, by its type arguments" \
	$CAPTURE go --probes "$TMP/oneinst.probes" -o "$TMP/oneinst" -- "$TMP/shapes"
refused genkind 'genkind.probes:3: v is go\.shape\.uint64 \(8 bytes, as u64\), not i64' "$N"
spec nofield "$S" 'entry T' '	x i64 n.Nope'
refused nofield 'nofield.probes:3: .*n\.Nope: main\.Node has no field Nope' "$N"

# Interfaces by dynamic type, len of a map, nil tests: their refusals.
spec notype "$S" 'return T' '	x i64 len(n.Log.(*main.nosuch).entries)'
refused notype 'notype.probes:3: .*\.\(\*main\.nosuch\): no type \*main\.nosuch in the binary' "$N"
spec noiface "$S" 'return T' '	x i64 len(n.ID.(*main.memLog).entries)'
refused noiface 'noiface.probes:3: .*main\.ServerID is not an interface' "$N"
spec notptr "$S" 'return T' '	x i64 len(n.Log.(main.memLog).entries)'
refused notptr 'notptr.probes:3: .*\.\(main\.memLog\): only a pointer type is asserted here' "$N"
spec nevernil "$S" 'return T' '	x bool n.Term == nil'
refused nevernil 'nevernil.probes:3: .*n\.Term: uint64 is never nil' "$N"
spec nilint "$S" 'return T' '	x i64 n.Log == nil'
refused nilint 'nilint.probes:3: n\.Log == nil: a nil test is a bool of one value' "$N"
spec nolen "$S" 'return T' '	x i64 len(n.Term)'
refused nolen 'nolen.probes:3: .*len of uint64: only slices, strings and maps have one here' "$N"
