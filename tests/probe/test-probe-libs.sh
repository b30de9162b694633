#!/bin/bash
# capture probe of shared libraries and separate debug files (docs/libraries.md,
# "Libraries", "Separate debug information"): glibc's pthread_mutex_lock
# and unlock in tests/probe/mutex.c, read through libc6-dbg's DWARF (found
# by build id), checked against the program's log (check-mutex.py) and
# rerun by capture verify; the ledger split by objcopy, its debug file
# found by build id (CAPTURE_DEBUG_DIRS) and by debuglink, giving the
# unstripped build's events; a debug file of another build refused naming
# both; a library loaded by dlopen() after the start, by its path; a
# library the program does not link refused with what it links.
# needs: root btf python3 jq libc6-dbg
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/probe-lib.sh"
D=$TESTS_DIR/probe

gcc -O2 -g -pthread -o "$TMP/mutex" "$D/mutex.c"
if noted $CAPTURE probe --probes "$D/mutex.probes" -o "$TMP/c-mutex" -- "$TMP/mutex" 3 2 \
	>"$TMP/mutex.out"; then
	ok "capture probe of glibc's mutexes"
else
	not_ok "capture probe of glibc's mutexes" "$(why)"
fi
head -n -1 "$TMP/mutex.out" >"$TMP/mutex.log"
check "each lock's word and owner as glibc keeps them, as logged" \
	python3 "$D/check-mutex.py" "$TMP/c-mutex/events/mutex.ndjson" "$TMP/mutex.log"
sed '4s/^w1 /w2 /' "$TMP/mutex.log" >"$TMP/bad.log"
python3 "$D/check-mutex.py" "$TMP/c-mutex/events/mutex.ndjson" "$TMP/bad.log" >/dev/null 2>&1 &&
	not_ok "a log with one caller changed fails the check" "check-mutex.py passed it" ||
	ok "a log with one caller changed fails the check"
libc=$(jq -r '.environment.libraries[0]' "$TMP/c-mutex/MANIFEST.json")
id=$(readelf -n "$(jq -r .path <<<"$libc")" | sed -n 's/.*Build ID: //p')
debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ "$(jq -r .build_id <<<"$libc")" = "$id" ] && [ "$(jq -r .debug_file <<<"$libc")" = "$debug" ] &&
   [ "$(jq -r .debug_sha256 <<<"$libc")" = "$(sha256sum "$debug" | cut -d' ' -f1)" ]; then
	ok "manifest: libc's build id, its debug file by build id and that file's sha256"
else
	not_ok "manifest: libc's build id, its debug file and sha256" "$libc"
fi
expect_exit 0 "capture verify reruns the capture of glibc's mutexes" "" \
	$CAPTURE verify --trust "$TMP/c-mutex"

# The ledger: unstripped; stripped with its debug file in a build-id
# directory; stripped with a debuglink to the file beside it.
W=3 OPS=30
gcc -O2 -g -pthread -o "$TMP/ledger" "$D/ledger.c"
id=$(readelf -n "$TMP/ledger" | sed -n 's/.*Build ID: //p')
mkdir -p "$TMP/debug/.build-id/${id:0:2}" "$TMP/link"
objcopy --only-keep-debug "$TMP/ledger" "$TMP/debug/.build-id/${id:0:2}/${id:2}.debug"
objcopy --strip-debug "$TMP/ledger" "$TMP/byid"
objcopy --only-keep-debug "$TMP/ledger" "$TMP/link/ledger.debug"
objcopy --strip-debug --add-gnu-debuglink="$TMP/link/ledger.debug" "$TMP/ledger" "$TMP/link/linked"
ln -s link/linked "$TMP/linked"   # the debuglink is looked for beside its real path
CAPTURE_DEBUG_DIRS=$TMP/debug captured "$D/ledger.probes" "$D/check-ledger.py" \
	"its DWARF in the binary, or by build id" ledger byid
# (the same build id: with the directory above, the build-id file would come first)
CAPTURE_DEBUG_DIRS=$TMP/none captured "$D/ledger.probes" "$D/check-ledger.py" \
	"its DWARF in the binary, or by debuglink" ledger linked
if [ "$(jq -r .environment.debug_file "$TMP/c-byid/MANIFEST.json")" = \
     "$TMP/debug/.build-id/${id:0:2}/${id:2}.debug" ] &&
   [ "$(jq -r .environment.debug_file "$TMP/c-linked/MANIFEST.json")" = "$TMP/link/ledger.debug" ] &&
   [ "$(jq -r '.environment.debug_file // "none"' "$TMP/c-ledger/MANIFEST.json")" = none ]; then
	ok "manifest: the debug file found, none for the unstripped build"
else
	not_ok "manifest: the debug file found" "$(jq -c .environment "$TMP/c-byid/MANIFEST.json")"
fi

# Another build's debug file where the debuglink says: refused, naming both.
gcc -O1 -g -pthread -o "$TMP/other" "$D/ledger.c"
other=$(readelf -n "$TMP/other" | sed -n 's/.*Build ID: //p')
objcopy --only-keep-debug "$TMP/other" "$TMP/link/ledger.debug"
cp "$D/ledger.probes" "$TMP/mismatch.probes"
refused mismatch "link/linked \(build id $id\): its debug file .*link/ledger.debug is another build's \(build id $other\)" \
	"$TMP/link/linked"
CAPTURE_DEBUG_DIRS=$TMP/none expect_exit 3 "a stripped binary with no debug file found: refused" \
	"byid: no DWARF debug information .*, and no separate debug file \(looked for $TMP/none/.build-id/" \
	$CAPTURE probe --probes "$D/ledger.probes" -o "$TMP/out-none" -- "$TMP/byid"

# A library the program loads with dlopen() after it started, named by
# its path: its probe, placed before it is mapped, is there once it is.
cat >"$TMP/plugin.c" <<'EOF'
__attribute__((noipa)) long plugin_add(long a, long b) { return a + b; }
EOF
cat >"$TMP/host.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : 0;
	long (*add)(long, long) = h ? (long (*)(long, long))dlsym(h, "plugin_add") : 0;

	for (long i = 1; add && i <= 3; i++)
		printf("add %ld %ld\n", i, add(i, 10 * i));
	return !add;
}
EOF
gcc -O2 -g -shared -fPIC -o "$TMP/libplugin.so" "$TMP/plugin.c"
gcc -O2 -g -o "$TMP/host" "$TMP/host.c" -ldl
spec plugin "func $TMP/libplugin.so:plugin_add" 'entry Add' '	a i64 a' '	b i64 b'
if noted $CAPTURE probe --probes "$TMP/plugin.probes" -o "$TMP/c-plugin" -- "$TMP/host" \
	"$TMP/libplugin.so" >/dev/null &&
   [ "$(jq -c '[.a, .b]' "$TMP/c-plugin/events/host.ndjson" | tr -d '\n')" = "[1,10][2,20][3,30]" ]; then
	ok "a library loaded by dlopen() after the start, named by its path: its calls seen"
else
	not_ok "a library loaded by dlopen(): its calls seen" "$(why; cat "$TMP/c-plugin/events/host.ndjson" 2>/dev/null)"
fi

spec nolib 'func libnosuch.so.1:f' 'entry E' '	x i32 x'
refused nolib 'nolib.probes:1: .*mutex: links no library libnosuch.so.1 \(it links: .*libc.so.6' \
	"$TMP/mutex"
