# What tests/projection's scripts of programs share (source it after
# tests/lib.sh, in $TMP): a program captured twice under its spec, its
# corpus through every form and back, graded by a next() and a planted
# wrong one.

# twice PREFIX COMMAND SPEC PROGRAM [ARGS...]: `capture COMMAND --probes
# SPEC` of PROGRAM into PREFIXa and PREFIXb, which must be byte-identical;
# PREFIXa.log is what the program printed.
twice() {
	local p=$1 cmd=$2 spec=$3 c
	shift 3
	for c in a b; do
		if $CAPTURE "$cmd" --probes "$spec" -o "$p$c" -- "$@" >"$p$c.out" 2>"$p$c.err"; then
			ok "${p}capture $cmd by the spec's projection ($c)"
		else
			not_ok "${p}capture $cmd by the spec's projection ($c)" "$(tail -n 2 "$p$c.err")"
		fi
	done
	if diff -r "${p}a" "${p}b" >/dev/null; then
		ok "${p}captured twice, one schedule: the same bytes"
	else
		not_ok "${p}captured twice, one schedule: the same bytes" "$(diff -rq "${p}a" "${p}b" | head -n 3)"
	fi
	head -n -1 "${p}a.out" >"${p}a.log"
}

# forms_back SPEC CORPUS RUN: CORPUS's windows SYSTEM/RUN.ndjson in the
# stream form, ITF and the canonical form (its raw/RUN.events.ndjson
# folded again) converted back to the same bytes.
forms_back() {
	local spec=$1 w events=$2/raw/$3.events.ndjson
	w=$2/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["system"])' "$2/MANIFEST.json")/$3.ndjson
	noted "$CAPTURE" convert --form stream "$w" x.stream && noted "$CAPTURE" convert x.stream x.ndjson &&
		same_bytes "the stream form converts back" "$w" x.ndjson || not_ok "the stream form converts back" "$(why)"
	noted "$CAPTURE" convert --form itf "$w" x.itf.json && noted "$CAPTURE" convert x.itf.json y.ndjson &&
		same_bytes "ITF converts back" "$w" y.ndjson || not_ok "ITF converts back" "$(why)"
	rm -rf canon c
	noted "$CAPTURE" fold "$spec" "$events" --form canonical -o canon >/dev/null &&
		noted "$CAPTURE" convert canon c && same_bytes "the canonical form converts back" "$w" "c/$3.events.ndjson" ||
		not_ok "the canonical form converts back" "$(why)"
}

# graded CORPUS N GOOD BAD PATTERN: node GOOD passes all N windows of
# CORPUS; node BAD fails (exit 4), naming windows whose lines match PATTERN.
graded() {
	expect_exit 0 "grade: $(basename "$3") passes every window" '' \
		"$CAPTURE" grade --json --exec "node $3" "$1"
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["all"]; sys.exit(0 if a["passed"] == a["windows"] == int(sys.argv[2]) else 1)' \
		"$TMP/.stdout" "$2" && ok "grade: $2 of $2" || not_ok "grade: $2 of $2" "$(head -c 300 "$TMP/.stdout")"
	expect_exit 4 "grade: $(basename "$4"), planted wrong, fails" '' \
		"$CAPTURE" grade --exec "node $4" "$1"
	grep -qE "$5" "$TMP/.stdout" && ok "grade names the windows $(basename "$4") fails" ||
		not_ok "grade names the windows $(basename "$4") fails" "$(tail -n 2 "$TMP/.stdout")"
}
