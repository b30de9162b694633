#!/bin/bash
# capture probe --describe (docs/libraries.md, "--describe"): on a C, a C++
# and a Rust binary, and a library through its separate debug file, what
# it prints for Go: the functions (declarations left out, inlined ones
# marked), a function's arguments with their types (a C pointer's type
# written as C writes it, never "?"), the fields one level down, a Rust
# enum's variants, the RET sites, a tail call, inlined instances with
# their callers, --addresses; the names planted in the sources below.
# needs: root btf cargo libc6-dbg
source "$(dirname "$0")/../lib.sh"
D=$TESTS_DIR/probe

cat >"$TMP/planted.c" <<'EOF'
#include <stdio.h>
struct planted_owner { int planted_uid; };
struct planted_account { long planted_balance; struct planted_owner *planted_owner; };
static inline int planted_inline(long x) { return x > 100; }
__attribute__((noipa)) int planted_apply(struct planted_account *acct, const char *memo, long cents)
{
	acct->planted_balance += cents;
	return planted_inline(acct->planted_balance) + (memo[0] == 'x');
}
__attribute__((noipa)) int planted_sink(int v) { return v * 3; }
__attribute__((noipa)) int planted_route(int v) { if (v > 2) return planted_sink(v + 1); return v; }
int main(int argc, char **argv)
{
	struct planted_owner o = { 7 };
	struct planted_account a = { 1, &o };
	printf("%d %d\n", planted_apply(&a, argv[0], argc), planted_route(argc));
	return 0;
}
EOF
cat >"$TMP/planted.cc" <<'EOF'
#include <cstdio>
struct PlantedAccount { long planted_cents; int planted_id; };
class PlantedVault {
public:
	PlantedAccount accounts[2];
	long planted_total;
	__attribute__((noinline)) long planted_deposit(PlantedAccount *to, long cents);
};
long PlantedVault::planted_deposit(PlantedAccount *to, long cents)
{
	to->planted_cents += cents;
	return planted_total += cents;
}
int main() { PlantedVault v{}; printf("%ld\n", v.planted_deposit(&v.accounts[0], 5)); }
EOF
gcc -O2 -g -o "$TMP/planted" "$TMP/planted.c"
g++ -O2 -g -o "$TMP/plantedxx" "$TMP/planted.cc"
CARGO=$(PATH=$PATH:$HOME/.cargo/bin command -v cargo)
"$CARGO" build -q --locked --manifest-path "$D/rust/Cargo.toml" \
	--target-dir "$ROOT/build/probe-rust/legacy" 2>"$TMP/cargo.err" ||
	not_ok "cargo build of the till" "$(tail -n 2 "$TMP/cargo.err")"
TILL=$ROOT/build/probe-rust/legacy/debug/till

# has NAME OUT LINE...: every LINE is a line of OUT (blanks squeezed), and no "?" type
has() {
	local name=$1 out=$2 missing="" l; shift 2
	for l in "$@"; do
		tr -s ' ' <"$out" | grep -qxF -- "$l" || missing="$missing [$l]"
	done
	if grep -q '  ?$\| ? \*' "$out"; then missing="$missing (a type printed as ?: $(grep -m1 '?' "$out"))"; fi
	[ -z "$missing" ] && ok "$name" || not_ok "$name" "missing:$missing; got: $(tr '\n' '|' <"$out" | head -c 600)"
}
describe() { $CAPTURE probe --describe "$@" 2>"$TMP/.why"; }

describe "$TMP/planted" >"$TMP/list"
has "C: the functions, inlined ones marked, no declaration" "$TMP/list" \
	"planted_apply" "planted_inline (inlined: probe a caller)" "planted_route" "main"
grep -qx 'printf' "$TMP/list" && not_ok "C: a declaration (printf) is no function of the binary" "listed" ||
	ok "C: a declaration (printf) is no function of the binary"
describe "$TMP/planted" planted_apply >"$TMP/apply"
has "C: arguments with C's types, fields one level down, RET sites" "$TMP/apply" \
	"func planted_apply" " acct struct planted_account *" " memo const char *" " cents long int" \
	" fields of acct (struct planted_account *):" " acct.planted_balance long int" \
	" acct.planted_owner struct planted_owner *"
grep -Eq '^  probe: entry and [1-9][0-9]* RET sites? \(every return\)$' "$TMP/apply" &&
	ok "C: planted_apply's RET sites" || not_ok "C: planted_apply's RET sites" "$(head -n 3 "$TMP/apply")"
describe "$TMP/planted" planted_inline >"$TMP/inline"
has "C: an inlined function, its instance in its caller" "$TMP/inline" \
	"func planted_inline" " planted_apply"
grep -q '^  inlined: [1-9]' "$TMP/inline" && ok "C: inlined instances counted" ||
	not_ok "C: inlined instances counted" "$(cat "$TMP/inline")"
describe "$TMP/planted" planted_route >"$TMP/route"
describe "$TMP/planted" planted_route --addresses >"$TMP/route-addr"
grep -q '^  tail call: ' "$TMP/route" && ! grep -q 0x "$TMP/route" &&
	grep -Eq '^  file offsets: entry 0x[0-9a-f]+, RET 0x[0-9a-f]+.*, tail call 0x[0-9a-f]+$' "$TMP/route-addr" &&
	ok "C: a tail call said, its offset only with --addresses" ||
	not_ok "C: a tail call said" "$(cat "$TMP/route" "$TMP/route-addr")"
describe "$TMP/planted" planted_apply >"$TMP/apply2"
same_bytes "C: the same text twice" "$TMP/apply" "$TMP/apply2"

describe "$TMP/plantedxx" planted_deposit >"$TMP/deposit"
has "C++: a method's this, arguments, fields of this and of a pointer" "$TMP/deposit" \
	"func planted_deposit" " this PlantedVault * const" " to PlantedAccount *" " cents long int" \
	" this.accounts PlantedAccount [2]" " this.planted_total long int" " to.planted_cents long int"

describe "$TILL" >"$TMP/rlist"
if grep -qx 'till::shop::Till::apply' "$TMP/rlist" && grep -qx 'till::shop::audit' "$TMP/rlist" &&
   ! grep -v '^till::' "$TMP/rlist" | grep -q .; then
	ok "Rust: the crate's own functions, by path, a generic one by its base name"
else
	not_ok "Rust: the crate's own functions" "$(grep -v '^till::' "$TMP/rlist" | head -n 3)"
fi
describe "$TILL" till::shop::Till::apply >"$TMP/rapply"
has "Rust: arguments with Rust's types, fields, an enum's variants" "$TMP/rapply" \
	"func till::shop::Till::apply" " self &mut till::shop::Till" " op &till::shop::Op" \
	" memo &str" " self.applied u64" " op.Deposit variant (Deposit)" " op.Freeze variant (Freeze)"
grep -q 'memo.data_ptr' "$TMP/rapply" && not_ok "Rust: a &str's words are not fields" "listed" ||
	ok "Rust: a &str's words are not fields"

describe /lib/x86_64-linux-gnu/libc.so.6 pthread_mutex_lock >"$TMP/lock"
has "a library's function through its separate debug file" "$TMP/lock" \
	"func pthread_mutex_lock" \
	" the function of symbol pthread_mutex_lock: DWARF names it ___pthread_mutex_lock" \
	" mutex pthread_mutex_t *" " mutex.__data struct __pthread_mutex_s"
grep -q '^  tail call: ' "$TMP/lock" && ok "glibc's pthread_mutex_lock: its tail call said" ||
	not_ok "glibc's pthread_mutex_lock: its tail call said" "$(cat "$TMP/lock")"
expect_exit 3 "--describe: no match, the nearest names" "no function matches planted_aply \(did you mean planted_apply" \
	$CAPTURE probe --describe "$TMP/planted" planted_aply
