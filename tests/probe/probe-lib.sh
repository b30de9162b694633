# What tests/probe's scripts share (sourced after tests/lib.sh): a C
# program's builds, captured under one spec, checked against the log
# each prints, compared with each other; refusals.

# compile NAME SOURCES CC FLAGS...: $TMP/NAME, a threaded C program of
# SOURCES (words, globs too).
compile() {
	local name=$1 src=$2 cc=$3; shift 3
	# shellcheck disable=SC2086 # SOURCES are words
	$cc "$@" -pthread -o "$TMP/$name" $src 2>"$TMP/cc.err" ||
		not_ok "build $name: $cc $*" "$(tail -n 2 "$TMP/cc.err")"
}

# captured SPEC CHECKER WHAT BIN...: each $TMP/BIN run as BIN $W $OPS
# under SPEC into $TMP/c-BIN, its events checked against its log by
# CHECKER (EVENTS LOG W OPS), its stderr saying once how uprobes attach
# (the BPF loading thread and the manifest both ask); then every BIN's
# events against the first's.
captured() {
	local spec=$1 checker=$2 what=$3 bin out n; shift 3
	for bin in "$@"; do
		if $CAPTURE probe --probes "$spec" -o "$TMP/c-$bin" -- "$TMP/$bin" $W $OPS \
			>"$TMP/$bin.out" 2>"$TMP/$bin.err"; then
			ok "capture probe of the program built $bin"
		else
			not_ok "capture probe of the program built $bin" "$(tail -n 2 "$TMP/$bin.err")"
		fi
		n=$(grep -o 'uprobes attached as' "$TMP/$bin.err" | wc -l)
		[ "$n" = 1 ] && ok "$bin: how uprobes attach, said once" ||
			not_ok "$bin: how uprobes attach, said once" "$n times: $(head -n 2 "$TMP/$bin.err")"
		# stdout: the program's log, then the corpus directory capture prints.
		head -n -1 "$TMP/$bin.out" >"$TMP/$bin.log"
		if out=$(python3 "$checker" "$TMP/c-$bin/events/$bin.ndjson" "$TMP/$bin.log" \
			$W $OPS 2>&1); then
			ok "$bin: $what as logged ($out)"
		else
			not_ok "$bin: the events against the log" "$out"
		fi
	done
	for bin in "${@:2}"; do
		same_bytes "$bin: the same events as $1" \
			"$TMP/c-$1/events/$1.ndjson" "$TMP/c-$bin/events/$bin.ndjson"
	done
}

# can_fail CHECKER BIN SED WHAT: CHECKER fails BIN's events against its
# log changed by SED (one value of WHAT).
can_fail() {
	sed "$3" "$TMP/$2.log" >"$TMP/bad.log"
	python3 "$1" "$TMP/c-$2/events/$2.ndjson" "$TMP/bad.log" $W $OPS >/dev/null 2>&1 &&
		not_ok "a log with one $4 changed fails the check" "$(basename "$1") passed it" ||
		ok "a log with one $4 changed fails the check"
}

spec() {   # spec NAME LINE...: a spec file of these lines
	local name=$1; shift
	printf '%s\n' "$@" >"$TMP/$name.probes"
}
refused() {   # refused NAME PATTERN BINARY: exit 3, the message, nothing written
	expect_exit 3 "refused: $1" "$2" \
		$CAPTURE probe --probes "$TMP/$1.probes" -o "$TMP/out-$1" -- "$3"
	nothing_left "nothing written: $1" "$TMP/out-$1"
}
