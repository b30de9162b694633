/* SPDX-License-Identifier: MIT */
/*
 * The Go uprobe engine: load goprobe.bpf.c, describe what each probe site
 * reads, start the target held on a pipe, attach with a pid filter, let it
 * exec, and hand every record to a callback in the order they happened.
 * Any lost record (ring buffer full) or exit without its entry fails the
 * capture with the counts (EXIT_CAPTURE_FAILED); no BPF permission is
 * EXIT_ENV_MISSING.  Every call that can fail returns it in a struct
 * cap_err (capture/err.h); only running out of memory dies.
 */
#ifndef GOPROBE_ENGINE_H
#define GOPROBE_ENGINE_H

#include "attach.h"
#include "binary.h"
#include "goprobe.h"
#include <sys/types.h>

struct gp_engine;
struct cap_err;

/*
 * Fail with EXIT_ENV_MISSING unless this process may load BPF programs and
 * attach uprobes (CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON): callers check
 * first, before building or resolving anything.
 */
int gp_may_probe(struct cap_err *err);

/* An engine for @binary (its DWARF read), or NULL. */
struct gp_engine *gp_open(const char *binary, struct cap_err *err);
void gp_close(struct gp_engine *e);
struct probe_binary *gp_binary(struct gp_engine *e);

/*
 * Ring-buffer size in bytes (a power of two, at least a page; 0 keeps the
 * default of 1 MiB).  With
 * @hold the records are read only once the target has exited, so that a
 * ring smaller than the run's records must lose some: this is how the loss
 * accounting is tested.
 */
void gp_set_ring(struct gp_engine *e, unsigned long bytes, int hold);

/*
 * A served target, one that reads pieces of work on stdin and marks each
 * one's end with a probed call: its stdin is @fd (close-on-exec in
 * capture; the target gets it as 0), and the ring buffer is read at least
 * every @poll_ms ms (default 50): a short piece's records stay below the
 * byte threshold that wakes the reader.
 */
void gp_set_stdin(struct gp_engine *e, int fd, int poll_ms);

/*
 * Write a Go program's goroutine ids (each record's, and every value its
 * "goid" reads) as their index in their process, in the order records
 * came (1, 2, ...), as threads' are where there are no goroutines: Go's
 * ids depend on which processor ran each "go" statement, the order of a
 * fixed schedule does not.  Call before probing; at most 4096 goroutines
 * (and threads) then.
 */
void gp_number_goroutines(struct gp_engine *e);

/*
 * Follow the target's processes: the probes then also see every process it
 * starts (and they start); each program they run is announced by a
 * GP_SITE_EXEC record.  Without it only the first process is probed (a pid filter).
 */
void gp_follow(struct gp_engine *e);

/*
 * The file a spec's function LIB:SYMBOL is in (bpf/libraries.h): @lib
 * NULL is the binary; a library is found as the target's dynamic linker
 * (or, with gp_set_pid(), the process's maps) has it, opened once, its
 * DWARF its own or its separate debug file's (bpf/debuginfo.h).  NULL
 * and @err if there is none.
 */
struct probe_binary *gp_object(struct gp_engine *e, const char *lib, struct cap_err *err);
/* The files probed: the binary (0), then each library gp_object() opened. */
unsigned gp_nobjects(const struct gp_engine *e);
struct probe_binary *gp_object_at(struct gp_engine *e, unsigned i);

/*
 * Probe the running process @pid instead of starting the binary (which
 * must be its program): set before gp_object() and gp_run(), which then
 * attaches by the links' pid filter (no ptrace, no signal: the process
 * runs on untouched), and ends when it exits, after its @timeout_s (0:
 * never) or on a first SIGINT (capture/die.h's interrupt_stops()),
 * returning 0 with every record handed on.
 */
void gp_set_pid(struct gp_engine *e, pid_t pid);

/*
 * Start loading the BPF program on a thread of its own while the spec is
 * resolved (the verifier's work is most of a start): call it once the
 * ring, following and pid are set.  gp_run() waits for it and reports
 * its failure; without it gp_run() loads.  Nothing if this process may
 * not probe (gp_may_probe() says so first).
 */
void gp_preload(struct gp_engine *e);

/*
 * Probe function @name of the binary: its entry reads @entry (which also
 * says which argument registers to save for the exits); if @exit is not
 * NULL each return reads @exit: at every RET, or by a uretprobe where a
 * RET does not take each return of System V code (a tail call,
 * binary.h), which sees the registers after the return.  Returns the
 * site id of the entry; the exit's is that plus one; -1 with @err (a Go
 * function whose returns no RET takes).
 */
int gp_probe(struct gp_engine *e, const char *name, const struct gp_site *entry,
	     const struct gp_site *exit, struct cap_err *err);
/* gp_probe() of a function of @b, the binary or a library (gp_object()). */
int gp_probe_in(struct gp_engine *e, struct probe_binary *b, const char *name,
		const struct gp_site *entry, const struct gp_site *exit,
		struct cap_err *err);

typedef void (*gp_record_fn)(const struct gp_record *r, void *arg);

/*
 * Run the binary with @argv (argv[0] is ignored: the engine's binary runs),
 * stdout to @out_path (NULL: capture's own), under the probes (once per
 * engine), handing @fn each record.  Returns its exit status; -1 with @err
 * if the BPF program does not load or attach (EXIT_ENV_MISSING without
 * the permission), the run times out after @timeout_s seconds (0: never),
 * records were lost, the target was killed by a signal, or the engine ran
 * before (EXIT_USAGE).  A run that fails once the target started kills and
 * reaps its process group and removes @out_path.  @fn may die (capture's
 * failure cleanups kill the target then).
 */
int gp_run(struct gp_engine *e, char *const argv[], const char *out_path,
	   double timeout_s, gp_record_fn fn, void *arg, struct cap_err *err);

/*
 * Statistics of the last run.  busy counts probes that found their CPU's
 * scratch buffer taken (a probe preempted by another on the same CPU):
 * their records are lost, like drops.  sent is what the probes put in
 * the ring, which records (what the consumer took out) must equal.
 * prog_runs and prog_ns (the BPF
 * program's runs and total run time, without the uprobe trap around it)
 * are counted only while BPF run-time statistics are enabled
 * (bpf_enable_stats()).
 */
struct gp_stats {
	unsigned long long records, sent, drops, unmatched_exits, depth_overflow,
			   skipped_morestack, busy, prog_runs, prog_ns;
};
const struct gp_stats *gp_stats(struct gp_engine *e);

#endif
