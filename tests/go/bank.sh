# Shared by the capture go tests (source it after lib.sh): they need root
# (BPF uprobes) and Go (the toy bank), and say so when either is missing;
# build ARGS... builds the bank (tests/go/bank) with go build ARGS; spec
# and refused write and try spec files.
GO=/usr/local/go/bin/go
D=$TESTS_DIR/go
BANK_TEST=$(basename "$0" .sh)

if [ "$(id -u)" != 0 ]; then
	not_ok "$BANK_TEST" "needs root for BPF uprobes (make test runs as root)"
	exit 0
fi
if [ ! -x "$GO" ]; then
	not_ok "$BANK_TEST" "needs Go at $GO to build the toy bank"
	exit 0
fi

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
