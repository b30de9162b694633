/* SPDX-License-Identifier: MIT */
/*
 * The JVM probe engine, capture's side (docs/zookeeper.md, "The agent"):
 * a probe spec (bpf/gospec.h) laid out into a plan the agent resolves in
 * each JVM, and the agents' messages read from one FIFO, checked (every
 * JVM's messages numbered without a gap, none refused or failed) and
 * handed over as the eBPF engine's records, in the order the JVMs wrote
 * them.  Every call that can fail returns it in a struct cap_err.
 */
#ifndef JVM_ENGINE_H
#define JVM_ENGINE_H

#include <stdio.h>
#include <sys/types.h>
#include "../bpf/engine.h"

struct go_spec;
struct cap_err;
struct jvm_engine;

/* The agent's shared object, built by make; NULL and @err (EXIT_ENV_MISSING) if absent. */
const char *jvm_agent_path(struct cap_err *err);

/*
 * An engine for @spec (parsed from @spec_path, which refusals name): the
 * plan laid out and written, the FIFO made, in a private directory
 * jvm_close() removes.
 */
struct jvm_engine *jvm_open(struct go_spec *spec, const char *spec_path,
			    struct cap_err *err);
void jvm_close(struct jvm_engine *e);

/* The -agentpath option of a JVM in @mode ("run" or "check"): the engine's. */
const char *jvm_agent_option(struct jvm_engine *e, const char *mode);

/*
 * Run @argv with the agent in check mode (JAVA_TOOL_OPTIONS): its first
 * JVM resolves the spec when it starts and ends before the program
 * runs.  0; -1 with @err: the first refusal ("SPEC:LINE: why",
 * EXIT_BAD_INPUT), or no JVM started (EXIT_USAGE).
 */
int jvm_check(struct jvm_engine *e, char *const argv[], struct cap_err *err);

/* Read the FIFO from now on, handing @fn each record (a thread of its own). */
void jvm_start(struct jvm_engine *e, gp_record_fn fn, void *arg);
/* Wait until JVM @pid's agent said hello, at most @timeout_s: 0, or -1. */
int jvm_wait_hello(struct jvm_engine *e, pid_t pid, double timeout_s);
/* JVM @pid is killed on purpose: it ends without its agent's last message. */
void jvm_killed(struct jvm_engine *e, pid_t pid);
/*
 * Stop reading once every message written before is handed over: 0, or
 * -1 and @err for the first loss (a gap, a JVM ended without its last
 * message and not killed on purpose), refusal or failed record.
 */
int jvm_stop(struct jvm_engine *e, struct cap_err *err);

/*
 * capture jvm: run @argv under the probes (the agent in every JVM it
 * starts), to its end or @timeout_s; its exit status, or -1 and @err.
 */
int jvm_run(struct jvm_engine *e, char *const argv[], double timeout_s,
	    gp_record_fn fn, void *arg, struct cap_err *err);

struct jvm_stats {
	unsigned long long records, messages;
	int jvms;
};
const struct jvm_stats *jvm_stats(const struct jvm_engine *e);

/* --describe: what @what (CLASS or CLASS.METHOD) offers a spec, printed on @out. */
int jvm_describe(const char *what, char *const argv[], FILE *out, struct cap_err *err);

#endif
