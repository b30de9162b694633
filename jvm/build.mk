# The JVM probe engine: capture's side (the plan, the FIFO, the checks)
# in capture itself, and the agent java loads (-agentpath), a shared
# object of its own built against the JDK's jni.h and jvmti.h
# (openjdk-17-jdk-headless: make deps).  Without a JDK the agent is not
# built and capture jvm says so (exit 5).
JDK_HOME  ?= $(patsubst %/bin/javac,%,$(realpath $(shell command -v javac 2>/dev/null)))
JVM_AGENT := build/jvm/libcapture-jvm.so
JVM_AGENT_SRC := jvm/agent.c jvm/agent-plan.c jvm/agent-resolve.c jvm/agent-read.c \
		 jvm/agent-describe.c

ifneq ($(wildcard $(JDK_HOME)/include/jvmti.h),)
all asan: $(JVM_AGENT)
endif

# -std=gnu11: jni.h's own declarations; the agent's warnings are capture's.
$(JVM_AGENT): $(JVM_AGENT_SRC) jvm/agent.h jvm/agent-plan.h jvm/wire.h bpf/goprobe.h jvm/build.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared \
		-fvisibility=hidden -I$(JDK_HOME)/include -I$(JDK_HOME)/include/linux \
		-o $@ $(JVM_AGENT_SRC) -lpthread

CAPTURE_SRC += jvm/engine.c
