#!/bin/bash
# The layers of docs/architecture.md, read from the #include lines: nothing
# below the CLI includes the CLI's headers (capture/command.h, capture/cmd/),
# the core includes nothing above it, the libraries (bpf/, qemu/) no
# system.  Each check also runs on a planted violation, which it must find.
source "$(dirname "$0")/../lib.sh"
shopt -s nullglob

# includes ROOT GLOB...: the #include lines of the files GLOB under ROOT.
includes() {
	local root=$1; shift
	(cd "$root" && for g in "$@"; do for f in $g; do
		grep -Hn '^#include "' "$f"; done; done) || true
}

# Below the CLI: every source but capture/main.c and capture/cmd/.
below_cli() {
	includes "$1" 'capture/*.[ch]' 'bpf/*.[ch]' 'qemu/*.[ch]' 'folders/*.[ch]' \
		'scenarios/*.[ch]' 'scenarios/*/*.[ch]' 'scenarios/*/*/*.[ch]' 'bench/*.c' |
		grep -v '^capture/main\.c:' | grep -E '"([./]*capture/)?(cmd/|command\.h")'
}
core_up() {
	includes "$1" 'capture/*.[ch]' | grep -E '"\.\./(folders|bpf|qemu|scenarios)/'
}
library_up() {
	includes "$1" 'bpf/*.[ch]' 'qemu/*.[ch]' |
		grep -E '"\.\./(folders|scenarios|capture/cmd)/|command\.h"'
}

layer() {
	local name=$1 fn=$2 out
	out=$($fn "$ROOT")
	if [ -z "$out" ]; then ok "$name"; else not_ok "$name" "$(printf '%s' "$out" | head -n 3)"; fi
}
layer "nothing below the CLI includes the CLI's headers" below_cli
layer "the core includes no system and no library" core_up
layer "bpf/ and qemu/ include no system and no CLI" library_up
# The brief of issue 12, word for word: it prints nothing.
out=$(cd "$ROOT" && grep -n '#include' scenarios/*/*.c scenarios/*/*/*.c bpf/*.c qemu/*.c \
	folders/*.c | grep cmd/)
[ -z "$out" ] && ok "no scenarios/, bpf/, qemu/ or folders/ file includes capture/cmd/" ||
	not_ok "no scenarios/, bpf/, qemu/ or folders/ file includes capture/cmd/" "$out"

# The checks find what they look for.
mkdir -p "$TMP/plant/capture/cmd" "$TMP/plant/bpf" "$TMP/plant/scenarios/x/driver"
printf '#include "../../../capture/cmd/go-spec.h"\n' >"$TMP/plant/scenarios/x/driver/a.c"
printf '#include "../capture/command.h"\n#include "../folders/folder.h"\n' \
	>"$TMP/plant/bpf/b.c"
printf '#include "../folders/folder.h"\n' >"$TMP/plant/capture/c.c"
printf '#include "command.h"\n' >"$TMP/plant/capture/main.c"
[ "$(below_cli "$TMP/plant" | wc -l)" = 2 ] &&
	ok "a planted CLI include below the CLI is found (main.c's is the CLI's)" ||
	not_ok "a planted CLI include below the CLI is found" "$(below_cli "$TMP/plant")"
[ "$(core_up "$TMP/plant" | wc -l)" = 1 ] && ok "a planted core include of folders/ is found" ||
	not_ok "a planted core include of folders/ is found" "$(core_up "$TMP/plant")"
[ "$(library_up "$TMP/plant" | wc -l)" = 2 ] && ok "a planted library include of folders/ is found" ||
	not_ok "a planted library include of folders/ is found" "$(library_up "$TMP/plant")"
