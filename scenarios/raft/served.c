// SPDX-License-Identifier: MIT
/* The exploration's tries under the probes, in one harness (served.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "../../bpf/binary.h"
#include "../../bpf/engine.h"
#include "../../bpf/expr.h"
#include "../../bpf/gospec.h"
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/options.h"
#include "../../capture/proc.h"
#include "ebpf.h"
#include "served.h"
#include "tries.h"

/* Seconds a batch of tries may take, as a batch of harness runs. */
#define SERVED_TIMEOUT 60

struct served {
	struct raft_probed p;
	const char *bin;
	char *idle, *out;      /* events outside a try (none); harness stdout */
	char *exit_cover;      /* GOCOVERDIR of a covered harness's exit */
	int start_site, end_site;
	int in[2];             /* the harness's stdin */
	pthread_t engine;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *jobs;      /* the batch running: @n jobs */
	int n, started, ended;
	unsigned long long tries;   /* tries ended since the harness began */
	int exited, rc;        /* gp_run() returned @rc, @err */
	struct cap_err err;
};

/* The probed spec's events go to @path from now on. */
static void events_to(struct served *s, const char *path)
{
	if (fclose(s->p.out))
		die(EXIT_CAPTURE_FAILED, "%s: write error", s->p.raw);
	s->p.raw = path;
	s->p.out = fopen(path, "w");
	if (!s->p.out)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", path);
	go_spec_output(s->p.spec, NULL, s->p.out);
}

/* tryStart(i): the next job's events begin. */
static void try_start(struct served *s, const struct gp_record *r)
{
	struct job *j;

	pthread_mutex_lock(&s->mu);
	if (s->started == s->n || r->val[0] != s->tries)
		die(EXIT_CAPTURE_FAILED, "%s -serve started try %llu where try "
		    "%llu was due", s->bin, r->val[0], s->tries);
	j = &s->jobs[s->started++];
	pthread_mutex_unlock(&s->mu);
	events_to(s, j->files->trace);
	go_spec_forget(s->p.spec);   /* each try on a cluster of its own */
}

/* tryEnd(i, status): the job's events are complete, its status known. */
static void try_end(struct served *s, const struct gp_record *r)
{
	struct cap_err err;

	events_to(s, s->idle);
	if (go_spec_end(s->p.spec, NULL, &err))
		die_err(&err);
	pthread_mutex_lock(&s->mu);
	if (s->ended == s->started || r->val[0] != s->tries)
		die(EXIT_CAPTURE_FAILED, "%s -serve ended try %llu where try "
		    "%llu was due", s->bin, r->val[0], s->tries);
	if (r->val[1] && r->val[1] != EXIT_BAD_INPUT)
		die(EXIT_CAPTURE_FAILED, "%s -serve ended try %llu with status "
		    "%llu, neither 0 nor %d (a refusal)", s->bin, r->val[0],
		    r->val[1], EXIT_BAD_INPUT);
	s->jobs[s->ended++].status = (int)r->val[1];
	s->tries++;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void served_record(const struct gp_record *r, void *arg)
{
	struct served *s = arg;

	if (r->site == (unsigned)s->start_site)
		try_start(s, r);
	else if (r->site == (unsigned)s->end_site)
		try_end(s, r);
	else
		go_spec_record(r, s->p.spec);
}

static void *engine_thread(void *arg)
{
	struct served *s = arg;
	char *argv[] = { (char *)s->bin, "-serve", NULL };
	int rc = gp_run(s->p.e, argv, s->out, 0, served_record, s, &s->err);

	pthread_mutex_lock(&s->mu);
	s->exited = 1;
	s->rc = rc;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/*
 * Probe @func, reading its arguments @args (NULL-ended) where DWARF puts
 * them at the probe site: Go's registers, or System V's registers or
 * frame (a harness in another language, ebpf.h).
 */
static int probe_args(struct served *s, const char *func, const char *const args[])
{
	struct probe_binary *b = gp_binary(s->p.e);
	struct gp_site site = { 0 };
	struct cap_err err;
	Dwarf_Die fn;
	int id;

	if (probe_subprogram(b, func, &fn, &err))
		die_err(&err);
	for (; args[site.nreads]; site.nreads++) {
		struct probe_value v;
		char *why = probe_expr(b, &fn, args[site.nreads], 0, &v);

		if (why)
			die(EXIT_CAPTURE_FAILED, "%s: %s: %s", probe_path(b), func, why);
		site.reads[site.nreads] = v.rd;
	}
	id = gp_probe(s->p.e, func, &site, NULL, &err);
	if (id < 0)
		die_err(&err);
	return id;
}

struct served *served_start(const struct raft_harness *h, const char *bin,
			    const char *work)
{
	struct served *s = xcalloc(1, sizeof(*s));
	struct ring_options ring = { 0 };

	s->bin = bin;
	s->idle = xasprintf("%s/served-idle", work);
	s->out = xasprintf("%s/served-stdout", work);
	/*
	 * A covered harness writes its counters at exit, or warns on stderr
	 * that it cannot: the tries have theirs, these are thrown away.
	 */
	s->exit_cover = xasprintf("%s/served-exit", work);
	mkdir_p(s->exit_cover);
	setenv("GOCOVERDIR", s->exit_cover, 1);
	raft_probed_open(&s->p, bin, h->spec, s->idle, &ring);
	s->start_site = probe_args(s, h->try_start ? h->try_start : RAFT_LANG ".tryStart",
				   (const char *const[]){ "i", NULL });
	s->end_site = probe_args(s, h->try_end ? h->try_end : RAFT_LANG ".tryEnd",
				 (const char *const[]){ "i", "status", NULL });
	if (pipe2(s->in, O_CLOEXEC))
		die(EXIT_CAPTURE_FAILED, "pipe: %s", strerror(errno));
	/* a try's records are read within a millisecond of its end */
	gp_set_stdin(s->p.e, s->in[0], 1);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	progress("explore: tries through one probed harness (%s -serve)", bin);
	if (pthread_create(&s->engine, NULL, engine_thread, s))
		die(EXIT_CAPTURE_FAILED, "cannot start the engine's thread");
	return s;
}

static void add_field(struct strbuf *line, const char *f, int first)
{
	if (strpbrk(f, "\t\n"))
		die(EXIT_CAPTURE_FAILED, "%s: a tab or newline in a path of a "
		    "try (TMPDIR?)", f);
	strbuf_addf(line, "%s%s", first ? "" : "\t", f);
}

/* The try of @j as a line of the harness's stdin (serve.go). */
static void write_try(struct served *s, const struct job *j)
{
	struct strbuf line = { 0 };
	size_t done = 0;

	add_field(&line, j->coverdir ? j->coverdir : "", 1);
	add_field(&line, j->quiet ? "quiet" : "", 0);
	for (int i = 1; j->argv[i]; i++)
		add_field(&line, j->argv[i], 0);
	strbuf_addf(&line, "\n");
	while (done < line.len) {
		ssize_t w = write(s->in[1], line.buf + done, line.len - done);

		if (w < 0 && errno != EINTR)
			die(EXIT_CAPTURE_FAILED, "%s -serve: cannot write a try: %s",
			    s->bin, strerror(errno));
		done += w > 0 ? (size_t)w : 0;
	}
	strbuf_release(&line);
}

/*
 * The harness hung: the message names the try it was in (the first of
 * the batch not ended: serve.go runs them in order), whose arguments
 * run it again by hand, outside the search, and gives the scenario it
 * reads (-generate's PREFIX_FILE when it mutates a kept one, a replay's
 * scenario: explore.c's argv), which the search's work directory does
 * not outlive.
 */
static _Noreturn void served_hung(struct served *s)
{
	struct strbuf args = { 0 };
	const struct job *j = &s->jobs[s->ended];
	int generating = !strcmp(j->argv[1], "-generate");
	const char *read = generating ? j->argv[6] : j->argv[1];
	char *sc = read ? read_file(read, NULL) : NULL;

	for (int i = 1; j->argv[i]; i++)
		strbuf_addf(&args, " %s", j->argv[i]);
	die(EXIT_CAPTURE_FAILED, "%s -serve: a batch of tries timed out after "
	    "%d s, in try %d of %d:%s%s%s%s", s->bin, SERVED_TIMEOUT,
	    s->ended + 1, s->n, args.buf, sc ? "\n" : "",
	    sc ? (generating ? "its PREFIX_FILE:\n" : "its scenario:\n") : "",
	    sc ? sc : "");
}

/* The harness ended or hung before the batch did. */
static _Noreturn void served_failed(struct served *s)
{
	if (!s->exited)
		served_hung(s);
	if (s->rc < 0)
		die_err(&s->err);
	die(EXIT_CAPTURE_FAILED, "%s -serve exited with status %d during a try "
	    "(its message is above)", s->bin, s->rc);
}

void served_batch(struct served *s, struct job *jobs, int n)
{
	struct timespec until;
	int done;

	pthread_mutex_lock(&s->mu);
	s->jobs = jobs;
	s->n = n;
	s->started = s->ended = 0;
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < n; i++)
		write_try(s, &jobs[i]);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SERVED_TIMEOUT;
	pthread_mutex_lock(&s->mu);
	while (s->ended < n && !s->exited &&
	       pthread_cond_timedwait(&s->cv, &s->mu, &until) != ETIMEDOUT)
		;
	done = s->ended == n;
	pthread_mutex_unlock(&s->mu);
	if (!done)
		served_failed(s);
}

void run_tries(struct served *s, struct job *jobs, int n)
{
	if (s)
		served_batch(s, jobs, n);
	else
		run_batch(jobs, n);
}

/* @path is empty: the harness printed nothing, raft ran only in tries. */
static void must_be_empty(const char *path, const char *what)
{
	struct stat st;

	if (stat(path, &st) || st.st_size)
		die(EXIT_CAPTURE_FAILED, "%s: %s", path, what);
	unlink(path);
}

void served_stop(struct served *s)
{
	close(s->in[1]);
	pthread_join(s->engine, NULL);
	close(s->in[0]);
	unsetenv("GOCOVERDIR");
	remove_tree(s->exit_cover);
	if (s->rc)
		served_failed(s);
	raft_probed_end(&s->p);
	gp_close(s->p.e);
	must_be_empty(s->out, "the served harness printed something");
	must_be_empty(s->idle, "raft ran outside the tries");
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->idle);
	free(s->out);
	free(s->exit_cover);
	free(s);
}
