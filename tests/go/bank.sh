# Shared by the capture go tests (source it after lib.sh; their headers
# say they need root for BPF uprobes and Go for the toy bank): build
# ARGS... builds the bank (tests/go/bank) with go build ARGS; spec and
# refused write and try spec files.
GO=$(go_tool)
D=$TESTS_DIR/go

build() {
	GOTOOLCHAIN=local GOFLAGS=-mod=readonly $GO -C "$D/bank" build -trimpath \
		-buildvcs=false "$@" 2>"$TMP/go.err" ||
		not_ok "build the bank $*" "$(tail -n 2 "$TMP/go.err")"
}

# spec NAME LINE...: a spec file of these lines.
spec() {
	local name=$1; shift
	printf '%s\n' "$@" >"$TMP/$name.probes"
}
refused() {   # refused NAME PATTERN [BINARY]: exit 3, the message, nothing written
	local name=$1 pattern=$2 bin=${3:-$TMP/bank}
	expect_exit 3 "refused: $name" "$pattern" \
		$CAPTURE go --probes "$TMP/$name.probes" -o "$TMP/out-$name" -- "$bin"
	nothing_left "nothing written: $name" "$TMP/out-$name"
}
