# The Go uprobe engine: goprobe.bpf.c compiled with clang, its libbpf
# skeleton generated with bpftool, the loader and the DWARF resolver.
BPF_BUILD := build/bpf
BPF_OBJ   := $(BPF_BUILD)/goprobe.bpf.o
# Debian installs it in /usr/sbin, which a user's PATH lacks (make check).
BPFTOOL   ?= $(or $(shell command -v bpftool),/usr/sbin/bpftool)

CAPTURE_SRC  += bpf/engine.c bpf/attach.c bpf/binary.c bpf/expr.c bpf/expr-walk.c \
		 bpf/expr-go.c bpf/expr-sysv.c bpf/expr-rust.c bpf/readplan.c bpf/goeval.c \
		 bpf/gospec.c bpf/gospec-parse.c bpf/gospec-resolve.c bpf/gospec-record.c \
		 bpf/gocommand.c bpf/describe.c bpf/sysv-resolve.c bpf/rust-names.c \
		 bpf/debuginfo.c bpf/libraries.c bpf/dwarf-vars.c bpf/nearest.c
CAPTURE_LIBS += -lbpf -lelf -ldw -lcapstone -liberty
CAPTURE_DEPS += $(BPF_BUILD)/goprobe.skel.h
CFLAGS       += -I$(BPF_BUILD)

$(BPF_BUILD)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp
	mv $@.tmp $@

# The manifest records the object's sha256: the debug-prefix map keeps the
# checkout's path out of its BTF and DWARF, so two checkouts agree.
$(BPF_OBJ): bpf/goprobe.bpf.c bpf/goprobe.h $(BPF_BUILD)/vmlinux.h bpf/build.mk
	clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_BUILD) -Ibpf \
		-fdebug-prefix-map=$(CURDIR)=. -c $< -o $@

$(BPF_BUILD)/goprobe.skel.h: $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name goprobe > $@.tmp
	mv $@.tmp $@
