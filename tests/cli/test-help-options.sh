#!/usr/bin/env bash
# Every command's --help is its parser's table: for capture itself and each
# command and system capture --help lists (and each further help a help
# points to, "(capture grade --tlc SPEC.tla --help)"), the options its help
# documents are exactly those the parser hands getopt_long() (what
# CAPTURE_GETOPT_TABLE=1 makes --help print instead), each documented
# option is taken by the parser (never "unrecognized"), and an option no
# help documents is a usage error, exit 2.  Nothing runs: each option is
# given before an unknown one, which ends the parse.
# needs:
source "$(dirname "$0")/../lib.sh"

# The options a help documents, one a line as the table's form has them:
# "--NAME" or "-L", then " =" if it takes an argument.
documented() {
	local line re_short re_long on=0
	re_short='^  -([[:alnum:]])(, --([[:alnum:]-]+))?( ([^ ]+))?(  |$)'
	re_long='^      --([[:alnum:]-]+)( ([^ ]+))?(  |$)'
	while IFS= read -r line; do
		[ "$line" = "options:" ] && { on=1; continue; }
		[ $on = 1 ] || continue
		if [[ $line =~ $re_short ]]; then
			local arg=${BASH_REMATCH[5]:+ =}
			echo "-${BASH_REMATCH[1]}$arg"
			[ -n "${BASH_REMATCH[3]}" ] && echo "--${BASH_REMATCH[3]}$arg"
		elif [[ $line =~ $re_long ]]; then
			echo "--${BASH_REMATCH[1]}${BASH_REMATCH[3]:+ =}"
		fi
	done
	return 0
}

# The commands and systems capture --help lists.
"$CAPTURE" --help >"$TMP/main.help"
commands=$(sed -n '/^commands:$/,/^$/p' "$TMP/main.help" | awk 'NF > 1 { print $1 }')
check "capture --help lists commands and systems" test -n "$commands"

# The helps to check: capture's own (no words), each command's, and those
# a help points to, as the words before --help.
: >"$TMP/helps"
echo "" >>"$TMP/helps"
for c in $commands; do
	echo "$c" >>"$TMP/helps"
	"$CAPTURE" "$c" --help 2>/dev/null |
		grep -o "(capture $c [^()]* --help)" | sed 's/^(capture //; s/ --help)$//' \
		>>"$TMP/helps" || true
done

n=0
while IFS= read -r words; do
	n=$((n + 1))
	name="capture${words:+ $words}"
	# shellcheck disable=SC2086  # the words of a command line
	if ! "$CAPTURE" $words --help >"$TMP/$n.help" 2>"$TMP/$n.err"; then
		not_ok "$name --help" "exit non-zero: $(head -n 3 "$TMP/$n.err")"
		continue
	fi
	# shellcheck disable=SC2086
	CAPTURE_GETOPT_TABLE=1 "$CAPTURE" $words --help | LC_ALL=C sort >"$TMP/$n.table"
	documented <"$TMP/$n.help" | LC_ALL=C sort >"$TMP/$n.doc"
	undocumented=$(comm -23 "$TMP/$n.table" "$TMP/$n.doc")
	[ -z "$undocumented" ] && ok "$name: every option it takes is in its --help" ||
		not_ok "$name: every option it takes is in its --help" \
			"taken but not documented: $(echo $undocumented)"
	untaken=$(comm -13 "$TMP/$n.table" "$TMP/$n.doc")
	[ -z "$untaken" ] && ok "$name: every option its --help documents is in its table" ||
		not_ok "$name: every option its --help documents is in its table" \
			"documented but not in the table: $(echo $untaken)"
	check "$name: its --help documents options" test -s "$TMP/$n.doc"

	# Each documented option given to the parser, an unknown one after it.
	refused=""
	while read -r opt arg; do
		rc=0
		# shellcheck disable=SC2086
		"$CAPTURE" $words "$opt" ${arg:+x} --no-such-option-zz >/dev/null 2>"$TMP/err" || rc=$?
		flag=${opt#-}; flag=${flag#-}
		if [ $rc != 0 ] && [ $rc != 2 ] ||
		   grep -Eq "unrecognized option '--$flag|invalid option -- '$flag'|'--$flag' requires|requires an argument -- '$flag'" "$TMP/err"; then
			refused="$refused $opt (exit $rc: $(head -n 1 "$TMP/err"))"
		fi
	done <"$TMP/$n.doc"
	[ -z "$refused" ] && ok "$name: the parser takes every option its --help documents" ||
		not_ok "$name: the parser takes every option its --help documents" "$refused"
	# shellcheck disable=SC2086
	expect_exit 2 "$name --no-such-option: a usage error" \
		"unrecognized option '--no-such-option'" "$CAPTURE" $words --no-such-option
done <"$TMP/helps"
check "the helps of every command and system were read" test "$n" -gt 10

# The comparison catches a row a help leaves out: capture's own help
# without its first long option's row.
row=$(grep -m1 -E '^      --[[:alnum:]-]+' "$TMP/1.help")
opt=$(echo "$row" | awk '{ print $1 }')
grep -vxF "$row" "$TMP/1.help" | documented | LC_ALL=C sort >"$TMP/planted.doc"
missed=$(comm -23 "$TMP/1.table" "$TMP/planted.doc")
[ -n "$opt" ] && [ "${missed% =}" = "$opt" ] &&
	ok "a row left out of a help ($opt) is caught" ||
	not_ok "a row left out of a help ($opt) is caught" "found: $missed"
