# Sourced by the canonical tests: refused_each NAME SYSTEM FILE... checks
# that capture audit refuses (exit 4) each impossibility window of the
# FILEs alone, as a window in a cell the domain declares impossible.
refused_each() {
	local name=$1 system=$2 n=0 refused=0 rc line
	shift 2
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s\n' "$line" >"$TMP/one.ndjson"
		rc=0
		"$CAPTURE" audit --system "$system" "$TMP/one.ndjson" >/dev/null 2>&1 || rc=$?
		[ "$rc" = 4 ] && refused=$((refused + 1))
	done < <(cat "$@")
	[ "$n" -gt 0 ] && [ "$refused" = "$n" ] &&
		ok "$name: the audit refuses each of the $n impossibility windows" ||
		not_ok "$name: the audit refuses each impossibility window" "$refused of $n refused"
}
