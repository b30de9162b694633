/* SPDX-License-Identifier: MIT */
/*
 * Errors and exit codes.
 *
 * capture is a command-line tool: a failure reports one clear line on stderr
 * and exits with a code that says what kind of failure it was.  Anything
 * half-written (a corpus being assembled) is removed by the cleanup hooks
 * registered with on_failure() before the process exits.
 */
#ifndef CAPTURE_DIE_H
#define CAPTURE_DIE_H

#include <pthread.h>
#include <stdatomic.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_USAGE = 2,          /* bad command line */
	EXIT_BAD_INPUT = 3,      /* malformed input: message names file:line */
	EXIT_CHECK_FAILED = 4,   /* causal order, self-consistency, nondeterminism */
	EXIT_ENV_MISSING = 5,    /* QEMU, BPF permission, a package, Docker */
	EXIT_CAPTURE_FAILED = 6, /* timeout, lost events, guest crash */
	EXIT_DIFFERS = 7,        /* verify: regenerated output differs */
	EXIT_RERUN_FAILED = 8,   /* verify: the recorded command could not rerun */
};

/* Print "capture: <message>" and exit with @code after running cleanups. */
_Noreturn void die(enum exit_code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Same, with "capture: FILE:LINE: " in front (line 0: no line number). */
_Noreturn void die_at(enum exit_code code, const char *file, long line,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#ifdef CAPTURE_DIE_HOOK
/*
 * Fuzz builds only (never build/capture): when set, die() calls this with
 * its code and message (as it would print it, without "capture: ") after
 * the cleanups, instead of printing and exiting.  It must not return: a
 * harness longjmps back to its own frame and reads the next input.  Only
 * the thread that set it may die.
 */
extern void (*die_hook)(enum exit_code code, const char *msg);
#endif

/*
 * The message a die() is reporting (without "capture: " and its
 * "FILE:LINE: ", which die_location() gives), for a cleanup that keeps
 * what a failed run wrote; NULL before any die().
 */
const char *die_message(void);
const char *die_location(void);
/* Are the cleanups running for SIGINT, SIGTERM or SIGHUP (not a failure)? */
int cleanups_by_signal(void);

/* Progress for long steps, on stderr ("capture: booting guest (tcg)"). */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Register @fn(@arg) to run if the process dies.  Returns a handle for
 * cancel_on_failure() once the guarded work has been committed.
 */
int on_failure(void (*fn)(void *arg), void *arg);
void cancel_on_failure(int handle);
/*
 * Start thread @name (what ps and perf show) running @fn(@arg), with
 * @stop(@arg), which must end and join it, as a failure's cleanup; returns
 * that cleanup's handle.  Dies if the thread cannot start.
 */
int start_worker(pthread_t *thread, const char *name, void *(*fn)(void *),
		 void (*stop)(void *), void *arg);

/*
 * Keep the cleanups from running while a step they must not interleave with
 * runs (moving a corpus into place, creating a file in it): a signal's
 * cleanups wait for cleanups_release(); once they have started, this blocks
 * until the process ends.  Nests; a die() in between still cleans up.
 */
void cleanups_hold(void);
void cleanups_release(void);

/*
 * Call first thing in main(), before any thread or child exists: on
 * SIGINT, SIGTERM or SIGHUP run the cleanups, then end by that signal
 * (exit status 130, 143, 129 in a shell).  Children start unblocked.
 */
void cleanup_on_signals(void);
/*
 * While @flag is set (NULL: no more), a first SIGINT sets *@flag to 1 and
 * ends nothing: the work that set it ends on its own terms (a capture of
 * a running process writes its corpus).  A second SIGINT, SIGTERM or
 * SIGHUP end the process as cleanup_on_signals() says.
 */
void interrupt_stops(atomic_int *flag);

/*
 * Call in main(): a write to standard output that failed (a full disk or
 * device) makes the exit 6, "write error on standard output: WHY", unless
 * the run already fails with its own code.
 */
void check_stdout_at_exit(void);

/*
 * Which of @choices (NULL-terminated) environment variable @name holds: its
 * index, or -1 if it is unset or empty; any other value dies as a usage
 * error naming the choices.
 */
int env_choice(const char *name, const char *const choices[]);

/* Allocation that cannot fail (dies with EXIT_CAPTURE_FAILED). */
void *xmalloc(unsigned long n);
void *xcalloc(unsigned long n, unsigned long size);
void *xrealloc(void *p, unsigned long n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @s (malloc'ed) followed by @sep and @name, for "known: a, b" lists; frees @s. */
char *str_append(char *s, const char *sep, const char *name);
/* "a, b or c": @names (NULL-terminated), malloc'ed. */
char *str_choices(const char *const names[]);

#endif
