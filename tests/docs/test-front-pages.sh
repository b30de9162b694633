#!/bin/bash
# needs:
# The front pages stay short and true: README.md and docs/architecture.md
# are at most 150 lines; README's list of systems is what `capture list`
# prints, in its order; every `capture CMD` of README's command table is a
# command `capture --help` lists; every `make TARGET` it names exists (its
# tree paths: test-paths.sh); every page the table links is in its
# documentation list; every relative link of README.md and docs/ names a
# file that exists.  Each check also runs on a copy of the pages with a
# violation planted, which it must find.
source "$(dirname "$0")/../lib.sh"
shopt -s nullglob

# too_long ROOT: the front pages over 150 lines, as "FILE: N lines".
too_long() {
	local f n
	for f in README.md docs/architecture.md; do
		n=$(wc -l <"$1/$f")
		[ "$n" -le 150 ] || echo "$f: $n lines"
	done
}

# readme_systems ROOT: the names of README's "## Systems" list, in order.
readme_systems() {
	awk '/^## / { on = ($0 == "## Systems") } on && /^- `/' "$1/README.md" |
		sed 's/^- `\([^`]*\)`.*/\1/'
}
# capture_systems: the systems `capture list` printed (its unindented lines).
capture_systems() {
	sed -n 's/^\([^ ][^:]*\):.*/\1/p' "$TMP/list"
}
# systems_differ ROOT: README's list against capture's, as a diff.
systems_differ() {
	diff <(readme_systems "$1") <(capture_systems) | grep '^[<>]'
}

# table_commands ROOT: the CMD of every "| `capture CMD" row of README.
table_commands() {
	sed -n 's/^| `capture \([a-z][a-z-]*\).*/\1/p' "$1/README.md" | sort -u
}
# unknown_commands ROOT: table commands `capture --help` does not list.
unknown_commands() {
	local known
	known=$(awk '/^commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' "$TMP/help")
	table_commands "$1" | grep -vxF -f <(printf '%s\n' "$known")
}

# unknown_targets ROOT: the `make TARGET` README names that the Makefile
# has no rule for.
unknown_targets() {
	grep -o '`make [a-z][a-z-]*' "$1/README.md" | sed 's/^`make //' | sort -u |
		while read -r t; do
			grep -q "^$t:" "$1/Makefile" || echo "make $t"
		done
}

# unlisted_pages ROOT: the docs/ pages README's command table links that
# its "## Documentation" list does not (an area's page is in both).
unlisted_pages() {
	local listed
	listed=$(awk '/^## / { on = ($0 == "## Documentation") } on' "$1/README.md" |
		grep -o '](docs/[^)#]*' | sed 's/^](//' | sort -u)
	grep '^| `capture' "$1/README.md" | grep -o '](docs/[^)#]*' | sed 's/^](//' |
		sort -u | grep -vxF -f <(printf '%s\n' "$listed")
}

# broken_links ROOT: "FILE: TARGET" for every relative Markdown link of
# README.md and docs/ (any depth) whose file is missing; #anchors dropped.
broken_links() {
	local root=$1 f t
	for f in "$root"/README.md "$root"/docs/*.md "$root"/docs/*/*.md; do
		grep -o '](\([^)]*\))' "$f" | sed 's/^](\(.*\))$/\1/' | while read -r t; do
			case "$t" in http://*|https://*|mailto:*|'#'*|'') continue ;; esac
			t=${t%%#*}
			[ -e "${f%/*}/$t" ] || echo "${f#"$root"/}: $t"
		done
	done
}

# rule NAME FN: FN on the tree passes when it prints nothing.
rule() {
	local out
	out=$($2 "$ROOT")
	if [ -z "$out" ]; then ok "$1"; else not_ok "$1" "$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"; fi
}

# What capture says of itself, read once.
if ! "$CAPTURE" list >"$TMP/list" 2>"$TMP/err" || ! "$CAPTURE" --help >"$TMP/help" 2>>"$TMP/err"; then
	not_ok "capture list and capture --help run" "$(tail -n 2 "$TMP/err")"
	exit 0
fi
[ -n "$(readme_systems "$ROOT")" ] && ok "README has a list of systems" ||
	not_ok "README has a list of systems" "no '- \`NAME\`' line under '## Systems'"
[ -n "$(table_commands "$ROOT")" ] && ok "README has a command table" ||
	not_ok "README has a command table" "no '| \`capture CMD' row"
rule "README.md and docs/architecture.md are at most 150 lines" too_long
rule "README's systems are capture list's, in its order" systems_differ
rule "every command of README's table is one capture --help lists" unknown_commands
rule "every relative link of README.md and docs/ names a file" broken_links
rule "every page README's command table links is in its documentation list" unlisted_pages
rule "every make target README names is a rule of the Makefile" unknown_targets

# planted VIOLATION FN: a copy of the pages, changed by the shell code
# VIOLATION (run in the copy), on which FN must print something.
planted() {
	local name=$1 violation=$2 fn=$3 plant=$TMP/plant
	rm -rf "$plant" && mkdir -p "$plant"
	cp -r "$ROOT/README.md" "$ROOT/Makefile" "$ROOT/docs" "$plant/"
	(cd "$plant" && eval "$violation")
	if [ -n "$($fn "$plant")" ]; then ok "$name"; else not_ok "$name" "not found"; fi
}
planted "a README of 151 lines is found" \
	'yes "" | head -n 151 >>README.md' too_long
planted "a system missing from README's list is found" \
	'sed -i "/^- \`rwlock\`/d" README.md' systems_differ
planted "a system README lists and capture does not is found" \
	'sed -i "s/^- \`dqueue\`/- \`dqueues\`/" README.md' systems_differ
planted "two systems out of capture list's order are found" \
	'sed -i "/^- \`spin\`:/{h;d}; /^- \`spin-spinning\`/G" README.md' systems_differ
planted "a table command capture does not have is found" \
	'sed -i "s/^| \`capture list\`/| \`capture lst\`/" README.md' unknown_commands
planted "a link to a missing file is found" \
	'echo "[gone](docs/gone.md#x)" >>README.md' broken_links
planted "a link in docs/ to a missing file is found" \
	'mkdir -p docs/results && echo "[gone](../gone.md)" >>docs/results/x.md' broken_links
planted "a table's page missing from the documentation list is found" \
	'sed -i "/^## Documentation/,\$ s|\[rwlock\](docs/rwlock.md), ||" README.md' unlisted_pages
planted "a make target README names that the Makefile lacks is found" \
	'sed -i "s/^pydeps:/py-deps:/" Makefile' unknown_targets
