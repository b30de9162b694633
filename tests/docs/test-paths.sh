#!/bin/bash
# needs: python3
# Every repository path a doc page (README.md, docs/) or a C comment names
# is in the tree (tests/docs/stale-paths.py says what counts as a path).
# A stale path planted in a copy of a page and of a C file is found.
source "$(dirname "$0")/../lib.sh"
STALE=$ROOT/tests/docs/stale-paths.py

out=$(python3 "$STALE" "$ROOT" 2>&1)
[ -z "$out" ] && ok "every path the docs and C comments name exists" ||
	not_ok "every path the docs and C comments name exists" "$(head -n 5 <<<"$out")"

# planted NAME FILE SED: FILE copied and changed by SED; the copy's stale
# path is found at its line.
planted() {
	local name=$1 copy=$TMP/${2##*/} out
	sed "$3" "$ROOT/$2" >"$copy"
	out=$(python3 "$STALE" "$ROOT" "$copy")
	if grep -q ":[0-9]*: $4\$" <<<"$out"; then ok "$name"; else not_ok "$name" "found: $out"; fi
}
planted "a stale path planted in a doc is found" docs/audit.md \
	's|`capture/audit.h`|`capture/audits.h`|' capture/audits.h
planted "a stale path planted in a C comment is found" capture/loop.c \
	's|(docs/live-loop.md, "The loop")|(docs/live-loops.md, "The loop")|' docs/live-loops.md
planted "a stale placeholder path is found" capture/audit.h \
	's|folders/SYSTEM/SYSTEM-audit.c|folders/SYSTEM/SYSTEM-audits.c|' folders/SYSTEM/SYSTEM-audits.c
planted "a stale brace path is found" docs/raftrs.md \
	'1s|$| (`folders/raftrs/{raftrs,raft-rs}.c`)|' folders/raftrs/raft-rs.c
planted "a stale path planted in README is found" README.md \
	's|scripts/debian-packages|scripts/debian-pkgs|' scripts/debian-pkgs
