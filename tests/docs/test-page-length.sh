#!/bin/bash
# needs:
# Every page of docs/ (docs/*.md, a page added later too) is at most 350
# lines: an area page says what is, and one that grows past that has
# taken in test inventories, results or stories, or covers two topics
# (docs/contributing.md, the paragraph on area pages).  README.md and docs/architecture.md are held
# to 150 by test-front-pages.sh.  docs/results/ is not held to it: its
# files are records, each figure with its command and date, that grow
# by a section per measurement and are read by the section an area page
# links, never through; splitting one by size would scatter a record
# across files and the pointers the code keeps to it.  A page of 351
# lines planted in a copy of docs/ is found, one of 350 is not, and so
# is a new page over the limit.
source "$(dirname "$0")/../lib.sh"
shopt -s nullglob
MAX=350

# too_long DIR: "PAGE: N lines" for each DIR/*.md over MAX lines (a last
# line without its newline counts).
too_long() {
	local f n
	for f in "$1"/*.md; do
		n=$(awk 'END { print NR }' "$f")
		[ "$n" -le "$MAX" ] || echo "${f##*/}: $n lines"
	done
}

out=$(too_long "$ROOT/docs")
[ -z "$out" ] && ok "every docs/*.md page is at most $MAX lines" ||
	not_ok "every docs/*.md page is at most $MAX lines" "$out"
[ -n "$(echo "$ROOT"/docs/*.md)" ] && ok "docs/ has pages to measure" ||
	not_ok "docs/ has pages to measure" "no docs/*.md"

# planted NAME WANT SHELL: a copy of docs/*.md changed by SHELL (run in
# the copy); too_long must find a page there (WANT found) or none
# (WANT none).
planted() {
	local name=$1 want=$2 plant=$TMP/plant got
	rm -rf "$plant" && mkdir -p "$plant"
	cp "$ROOT"/docs/*.md "$plant/"
	(cd "$plant" && eval "$3")
	got=$(too_long "$plant")
	if { [ "$want" = found ] && [ -n "$got" ]; } || { [ "$want" = none ] && [ -z "$got" ]; }
	then ok "$name"; else not_ok "$name" "expected $want, got: ${got:-nothing}"; fi
}
# fill PAGE N: PAGE made exactly N lines long (its own lines first).
fill() {
	local more=$(($2 - $(wc -l <"$1")))
	head -n "$2" "$1" >"$1.new"
	[ "$more" -le 0 ] || yes 'a line' | head -n "$more" >>"$1.new"
	mv "$1.new" "$1"
}
planted "a page of $((MAX + 1)) lines is found" found "$(declare -f fill); fill etcd.md $((MAX + 1))"
planted "a page of $MAX lines passes" none "$(declare -f fill); fill etcd.md $MAX"
planted "a new page over the limit is found" found \
	"yes 'a line' | head -n $((MAX + 1)) >new-area.md"
planted "a last line without its newline counts" found \
	"$(declare -f fill); fill etcd.md $MAX; printf 'one more' >>etcd.md"
