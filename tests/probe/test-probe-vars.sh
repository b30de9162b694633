#!/bin/bash
# capture probe's variables (docs/probe-spec.md, "Variables"): the C gauge
# (tests/probe/gauge: threads taking turns on a state that is one packed
# global word) built -O0, -O2 and -O2 -no-pie with gcc and -O2 with
# clang (position-independent but for -no-pie: the load bias from the
# probe's own address), traced by tests/probe/gauge.probes (the word
# split by computed fields, a static of the probed function's file and
# one of another file by FILE::NAME, a function's static, a global
# struct, a pointer and an array) and checked against its own log
# (check-gauge.py), the same events from every build; every refusal (a
# thread-local, a static of two files from a third, a constant folded
# away, a misspelt name) with exit 3, its SPEC:LINE and nothing written.
# needs: root btf python3
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/probe-lib.sh"
D=$TESTS_DIR/probe
W=3 OPS=20

compile gauge0 "$D/gauge/*.c" gcc -O0 -g
compile gauge2 "$D/gauge/*.c" gcc -O2 -g
compile gaugenp "$D/gauge/*.c" gcc -O2 -g -no-pie
compile gaugec "$D/gauge/*.c" clang -O2 -g

captured "$D/gauge.probes" "$D/check-gauge.py" \
	"a packed global word split, statics of two files, a function's static, globals" \
	gauge0 gauge2 gaugenp gaugec
can_fail "$D/check-gauge.py" gauge2 '5s/level=\([0-9]*\)/level=9\1/' level
can_fail "$D/check-gauge.py" gaugec '7s/dial=\([0-9]*\)/dial=9\1/' "other file's static"
if readelf -h "$TMP/gauge2" | grep -q 'Type: *DYN' &&
   readelf -h "$TMP/gaugenp" | grep -q 'Type: *EXEC'; then
	ok "the builds: gauge2 position-independent, gaugenp not"
else
	not_ok "the builds: gauge2 position-independent, gaugenp not" "$(readelf -h "$TMP/gauge2" | grep Type)"
fi

A='func gauge_apply'
spec tls "$A" 'entry A' '	x i32 tls_ops'
refused tls 'tls.probes:3: .*gauge2: tls_ops: variable tls_ops is thread-local' "$TMP/gauge2"
spec twofiles 'func main' 'entry A' '	x i32 ops'
refused twofiles 'twofiles.probes:3: .*gaugec: ops: ops is defined in 2 files, none the probed function.s: name one as FILE::NAME \(dial.c::ops, gauge.c::ops\)' "$TMP/gaugec"
spec folded "$A" 'entry A' '	x u32 level_cap'
refused folded 'folded.probes:3: .*gauge2: level_cap: variable level_cap has no address: the compiler folded it to a constant' "$TMP/gauge2"
spec misspelt "$A" 'entry A' '	x u64 gauge_wrd'
refused misspelt 'misspelt.probes:3: .*gauge0: gauge_wrd: gauge_apply has no argument or result gauge_wrd, and the binary no variable gauge_wrd \(did you mean gauge_word\?\)' "$TMP/gauge0"
spec nofile "$A" 'entry A' '	x i32 meter.c::ops'
refused nofile 'nofile.probes:3: .*gauge0: meter.c::ops: gauge_apply has no argument or result meter, and the binary no variable meter.c::ops' "$TMP/gauge0"
spec wordfield "$A" 'entry A' '	x u64 gauge_word.level'
refused wordfield 'wordfield.probes:3: .*gauge2: gauge_word.level: long unsigned int has no fields' "$TMP/gauge2"
