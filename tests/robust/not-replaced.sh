# Shared by the output tests (source it after lib.sh).
# not_replaced PATH WHAT WINDOWS: convert and audit --svg refuse to write
# onto PATH, which is WHAT (as their message says it), and leave it as it was.
not_replaced() {
	local path=$1 what=$2 windows=$3 before
	before=$(stat -c %F "$path")
	expect_exit 2 "convert onto $what" "output $path is $what: not replacing it" \
		"$CAPTURE" convert "$windows" "$path"
	expect_exit 2 "audit --svg onto $what" "output $path is $what: not replacing it" \
		"$CAPTURE" audit --svg "$path" "$windows"
	[ "$(stat -c %F "$path")" = "$before" ] && ! compgen -G "$path.tmp-*" >/dev/null &&
		ok "$what is left as it was" || not_ok "$what is left as it was" "$(ls -l "$path"*)"
}
