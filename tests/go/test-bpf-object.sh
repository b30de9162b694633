#!/bin/bash
# The BPF object's sha256 goes into every eBPF corpus's manifest, so it
# must not depend on where the checkout is: no path of it in the object.
# The same source compiled without the build's prefix map must show the
# path (else the check could not fail).
# needs:
source "$(dirname "$0")/../lib.sh"
OBJ=$ROOT/build/bpf/goprobe.bpf.o

names_root() { strings "$1" | grep -qF "$ROOT"; }

if [ ! -f "$OBJ" ]; then
	not_ok "the BPF object names no checkout path" "$OBJ missing: run make"
elif names_root "$OBJ"; then
	not_ok "the BPF object names no checkout path" "$(strings "$OBJ" | grep -F "$ROOT" | head -n 2)"
else
	ok "the BPF object names no checkout path"
fi

(cd "$ROOT" && clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -Ibuild/bpf -Ibpf \
	-c "$ROOT/bpf/goprobe.bpf.c" -o "$TMP/plain.o")
if names_root "$TMP/plain.o"; then
	ok "without the prefix map the path is in the object (the check can fail)"
else
	not_ok "without the prefix map the path is in the object (the check can fail)" \
		"no $ROOT in $TMP/plain.o"
fi
