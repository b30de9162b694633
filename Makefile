# capture -- build, test, install dependencies.
#
#   make            build build/capture
#   make deps       install the Debian packages the project needs (as root)
#   make pydeps     install the Python packages the tests use (build/venv)
#   make quickstart deps + build + capture the contention scenario
#   make check      sanitizer build + the hermetic tests: no root, QEMU, Go
#                   or network, any user, seconds (tests/run --hermetic)
#   make test       sanitizer build + pydeps + every test (tests/run; under
#                   CI=true a test whose need is missing fails, never skips)
#   make fuzz       run each fuzz harness FUZZ_SECONDS (600) seconds
#   make hooks      use the tree's git hooks (scripts/hooks: commit-msg)
#
# tests/run -j N PATTERN runs the tests whose path has PATTERN, N at a time:
# tests/README.md.
#
# Subsystems add sources and rules in their own DIR/build.mk fragment
# (CAPTURE_SRC += ..., CAPTURE_LIBS += ..., CAPTURE_DEPS += generated files).

CC      ?= cc
PKGS    := libcjson libcrypto
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. \
	   $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lcjson -lcrypto)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# As many jobs as CPUs unless -j is given (a fresh build: 78 s serial, 39 s
# at -j 2).  What a recipe runs (tests, captures) gets no MAKEFLAGS: a make
# it starts (a kernel module's) would warn of a jobserver it cannot reach.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif
NOJOBS  := MAKEFLAGS=

# Fragments may define rules: the first goal stays "all".
.DEFAULT_GOAL := all

CAPTURE_SRC := $(wildcard capture/*.c capture/cli/*.c capture/readers/*.c \
	folders/*.c folders/*/*.c)
CAPTURE_DEPS :=
# The readers decode ftrace pages with libtraceevent (libtraceevent-dev).
CAPTURE_LIBS := $(shell pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
CFLAGS       += $(shell pkg-config --cflags libtraceevent 2>/dev/null || echo -I/usr/include/traceevent)
-include $(wildcard */build.mk)

OBJ      := $(CAPTURE_SRC:%.c=build/obj/%.o)
ASAN_OBJ := $(CAPTURE_SRC:%.c=build/asan/obj/%.o)
LIB_ASAN_OBJ := $(filter-out build/asan/obj/capture/cli/main.o,$(ASAN_OBJ))
UNIT_TESTS := $(patsubst tests/unit/%.c,build/asan/tests/%,$(wildcard tests/unit/test-*.c))

# Fuzz harnesses (tests/fuzz/fuzz-*.c, libFuzzer): clang, the same
# sanitizers, and die() returning to the harness (CAPTURE_DIE_HOOK), which
# build/capture never has.  docs/fuzzing.md.
FUZZ_CC  := clang
FUZZ_SAN := $(SAN) -DCAPTURE_DIE_HOOK
FUZZ_SECONDS ?= 600
FUZZ_BIN := $(patsubst tests/fuzz/fuzz-%.c,build/fuzz/fuzz-%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_LIB_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(filter-out capture/cli/main.c,$(CAPTURE_SRC)) \
	tests/fuzz/fuzz.c tests/unit/json-tokens-oracle.c)

.PHONY: all deps pydeps quickstart check test asan fuzz hooks clean
all: build/capture

build/capture: $(OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

build/obj/%.o: %.c $(CAPTURE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# Objects whose source was moved or removed since they were built: the
# layer checks (tests/layers) read every object under build/asan/obj.
STALE_ASAN_OBJ = $(filter-out $(ASAN_OBJ),$(shell find build/asan/obj -name '*.o' \
	-not -path 'build/asan/obj/tests/*' 2>/dev/null))

build/asan/capture: $(ASAN_OBJ)
	$(if $(STALE_ASAN_OBJ),rm -f $(STALE_ASAN_OBJ) $(STALE_ASAN_OBJ:.o=.d))
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

build/asan/obj/%.o: %.c $(CAPTURE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

build/asan/tests/%: tests/unit/%.c $(LIB_ASAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

# The unit test shares its judge of the tokenizer with the fuzz harness.
build/asan/tests/test-json-tokens: build/asan/obj/tests/unit/json-tokens-oracle.o

# Objects only the pattern rule below names: keep them between builds.
.SECONDARY: $(FUZZ_LIB_OBJ)
build/fuzz/obj/%.o: %.c $(CAPTURE_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(CAPTURE_LIBS) $(LDLIBS)

asan: build/asan/capture $(UNIT_TESTS) $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	$(NOJOBS) tests/fuzz/run $(FUZZ_SECONDS)

deps:
	@scripts/install-deps

pydeps:
	@scripts/install-python-deps

# The Python packages too: make check then runs offline.
quickstart: deps pydeps
	$(MAKE) all
	$(NOJOBS) build/capture spin --scenario contention -o corpus/contention

# The hermetic tier needs build/capture too (fold-stream, fuzz corpus).
# One job more than the CPUs: its signal and timeout tests mostly wait.
check: all asan
	$(NOJOBS) tests/run --hermetic -j $$(( $$(nproc) + 1 ))

test: all asan pydeps
	$(NOJOBS) tests/run

# The commit convention's checks (docs/contributing.md), for this clone.
hooks:
	git config core.hooksPath scripts/hooks

clean:
	rm -rf build

-include $(OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(FUZZ_LIB_OBJ:.o=.d)
