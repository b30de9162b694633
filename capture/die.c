// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "die.h"

#define MAX_CLEANUPS 64

static struct {
	void (*fn)(void *);
	void *arg;
} cleanups[MAX_CLEANUPS];

/*
 * The signal thread runs the cleanups while the other threads go on, so
 * the table is locked; recursive because a cleanup may itself die().
 */
static pthread_mutex_t cleanup_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int on_failure(void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&cleanup_lock);
	for (int i = 0; i < MAX_CLEANUPS; i++) {
		if (!cleanups[i].fn) {
			cleanups[i].arg = arg;
			cleanups[i].fn = fn;
			pthread_mutex_unlock(&cleanup_lock);
			return i;
		}
	}
	die(EXIT_CAPTURE_FAILED, "too many cleanup handlers");
}

int start_worker(pthread_t *thread, const char *name, void *(*fn)(void *),
		 void (*stop)(void *), void *arg)
{
	if (pthread_create(thread, NULL, fn, arg))
		die(EXIT_CAPTURE_FAILED, "cannot start the %s thread", name);
	pthread_setname_np(*thread, name);
	return on_failure(stop, arg);
}

void cancel_on_failure(int handle)
{
	pthread_mutex_lock(&cleanup_lock);
	cleanups[handle].fn = NULL;
	pthread_mutex_unlock(&cleanup_lock);
}

void cleanups_hold(void)
{
	pthread_mutex_lock(&cleanup_lock);
}

void cleanups_release(void)
{
	pthread_mutex_unlock(&cleanup_lock);
}

/*
 * Run cleanups newest first; each runs at most once even if it dies.  The
 * lock is kept until the process ends: whichever of die() and a signal
 * comes second waits, and exits with the first one's status.
 */
static void run_cleanups(void)
{
	pthread_mutex_lock(&cleanup_lock);
	for (int i = MAX_CLEANUPS - 1; i >= 0; i--) {
		void (*fn)(void *) = cleanups[i].fn;

		cleanups[i].fn = NULL;
		if (fn)
			fn(cleanups[i].arg);
	}
}

static sigset_t exit_signals;
/*
 * The signal being handled, once the signal thread has it: what a die()
 * then says is the signal's doing (its cleanup reaped a child, closed a
 * pipe), not news, and the process ends by the signal either way.
 */
static atomic_int stopping_by;
static pthread_t signal_tid;

/* A child starts with the signals as they were before we blocked them. */
static void unblock_in_child(void)
{
	pthread_sigmask(SIG_UNBLOCK, &exit_signals, NULL);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/*
 * Cleanups call malloc, nftw and mutexes, none of which a signal handler
 * may: a thread waits for the signals instead, runs the cleanups in an
 * ordinary context, then ends the process by the same signal (the shell
 * sees 128 + its number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
 */
static _Noreturn void end_by(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &exit_signals, NULL);
	_exit(128 + sig);
}

/* interrupt_stops()'s flag: a SIGINT sets it instead of ending the process. */
static _Atomic(atomic_int *) interrupt_flag;

void interrupt_stops(atomic_int *flag)
{
	atomic_store(&interrupt_flag, flag);
}

static void *signal_thread(void *arg)
{
	atomic_int *flag;
	int sig;

	(void)arg;
	for (;;) {
		if (sigwait(&exit_signals, &sig))
			return NULL;
		flag = atomic_load(&interrupt_flag);
		if (sig != SIGINT || !flag || atomic_load(flag))
			break;
		atomic_store(flag, 1);
		fprintf(stderr, "capture: SIGINT: ending the capture (a second SIGINT "
			"stops it, keeping nothing)\n");
	}
	stopping_by = sig;
	fflush(stdout);
	fprintf(stderr, "capture: %s: stopping, removing what this run left\n",
		signal_name(sig));
	run_cleanups();
	end_by(sig);
}

void cleanup_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	pthread_t t;

	sigemptyset(&exit_signals);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;

		/* An ignored signal (nohup, a shell's background job) stays so. */
		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler != SIG_IGN)
			sigaddset(&exit_signals, sigs[i]);
	}
	if (pthread_sigmask(SIG_BLOCK, &exit_signals, NULL) ||
	    pthread_atfork(NULL, NULL, unblock_in_child) ||
	    pthread_create(&t, NULL, signal_thread, NULL))
		die(EXIT_CAPTURE_FAILED, "cannot set up the signal thread");
	signal_tid = t;
	pthread_detach(t);
}

#ifdef CAPTURE_DIE_HOOK
void (*die_hook)(enum exit_code code, const char *msg);

/* die() for a fuzz harness: the message goes to the hook, not stderr. */
static _Noreturn void hooked_die(enum exit_code code, const char *file,
				 long line, const char *fmt, va_list ap)
{
	static char msg[1024];
	int n = 0;

	if (file && line > 0)
		n = snprintf(msg, sizeof(msg), "%s:%ld: ", file, line);
	else if (file)
		n = snprintf(msg, sizeof(msg), "%s: ", file);
	if (n >= 0 && (size_t)n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	run_cleanups();
	/* run_cleanups() keeps the lock for an exit that does not come. */
	pthread_mutex_unlock(&cleanup_lock);
	die_hook(code, msg);
	abort();
}
#endif

/* A failure is being reported: its own exit code stands. */
static volatile int dying;
/* What it says (die_message()), and where ("FILE:LINE: ", or NULL). */
static char *message, *where;

/*
 * At exit, standard output must have reached its file: a result cut short
 * by a full disk or device is a failure (exit 6) naming the cause, never a
 * success.  Called from exit(), so it may only _exit.
 */
static void stdout_reached(void)
{
	const char *why;

	errno = 0;
	if (dying || (!fflush(stdout) && !ferror(stdout) && !fclose(stdout)))
		return;
	why = errno ? strerror(errno) : "an earlier write failed";
	fprintf(stderr, "capture: write error on standard output: %s\n", why);
	run_cleanups();
	_exit(EXIT_CAPTURE_FAILED);
}

void check_stdout_at_exit(void)
{
	atexit(stdout_reached);
}

static _Noreturn void vdie(enum exit_code code, const char *file, long line,
			   const char *fmt, va_list ap)
{
	int sig = pthread_equal(pthread_self(), signal_tid) ? 0 : stopping_by;
	int located = 0;

	dying = 1;
#ifdef CAPTURE_DIE_HOOK
	if (die_hook)
		hooked_die(code, file, line, fmt, ap);
#endif
	/* After a signal, the signal thread speaks; this one ends the same way. */
	if (sig) {
		run_cleanups();
		end_by(sig);
	}
	fflush(stdout);
	if (vasprintf(&message, fmt, ap) < 0)
		message = NULL;
	if (file && line > 0)
		located = asprintf(&where, "%s:%ld: ", file, line);
	else if (file)
		located = asprintf(&where, "%s: ", file);
	fprintf(stderr, "capture: %s%s\n", located > 0 ? where : "",
		message ? message : fmt);
	run_cleanups();
	exit(code);
}

const char *die_message(void)
{
	return message;
}

const char *die_location(void)
{
	return where ? where : "";
}

int cleanups_by_signal(void)
{
	return stopping_by != 0;
}

void die(enum exit_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, NULL, 0, fmt, ap);
}

void die_at(enum exit_code code, const char *file, long line,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, file, line, fmt, ap);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("capture: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void *checked(void *p)
{
	if (!p)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	return p;
}

void *xmalloc(unsigned long n)
{
	return checked(malloc(n ? n : 1));
}

void *xcalloc(unsigned long n, unsigned long size)
{
	return checked(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, unsigned long n)
{
	return checked(realloc(p, n ? n : 1));
}

char *xstrdup(const char *s)
{
	return checked(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return checked(s);
}

char *str_append(char *s, const char *sep, const char *name)
{
	char *more = xasprintf("%s%s%s", s, sep, name);

	free(s);
	return more;
}

char *str_choices(const char *const names[])
{
	char *s = xstrdup("");

	for (size_t i = 0; names[i]; i++)
		s = str_append(s, !i ? "" : names[i + 1] ? ", " : " or ", names[i]);
	return s;
}

int env_choice(const char *name, const char *const choices[])
{
	const char *v = getenv(name);
	char *known;
	int i;

	if (!v || !*v)
		return -1;
	for (i = 0; choices[i]; i++)
		if (!strcmp(v, choices[i]))
			return i;
	known = str_choices(choices);
	die(EXIT_USAGE, "%s must be %s, not '%s'", name, known, v);
}
