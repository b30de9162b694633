// SPDX-License-Identifier: MIT
/*
 * The JVM probe engine, capture's side: see engine.h.  The FIFO is held
 * open for reading and writing, so that it never reads as ended while no
 * JVM has it open yet; the reader stops at a message of capture's own
 * (JW_STOP), after every message written before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../bpf/gospec.h"
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/home.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "engine.h"
#include "wire.h"

#define MAX_JVMS 256

struct jvm {
	pid_t pid;
	unsigned long long next;    /* the message number due */
	int hello, ended, killed;
};

struct jvm_engine {
	char *dir, *plan, *fifo, *spec_path;
	char *option;
	int fd, cleanup;
	pthread_t reader;
	int reading;
	gp_record_fn fn;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct jvm jvm[MAX_JVMS];
	int njvms;
	struct cap_err err;         /* the first failure */
	int failed;
	struct strbuf text;         /* describe's */
	struct jvm_stats stats;
};

const char *jvm_agent_path(struct cap_err *err)
{
	static char *path;

	if (!path)
		path = xasprintf("%s/build/jvm/libcapture-jvm.so", capture_home());
	if (access(path, R_OK)) {
		cap_fail(err, EXIT_ENV_MISSING, "%s: the JVM agent is not built (make builds it "
			 "with a JDK's jvmti.h: make deps installs openjdk-17-jdk-headless)", path);
		return NULL;
	}
	return path;
}

/* go_spec_layout()'s visitor: the plan's lines (wire.h). */
static void plan_site(void *arg, int id, const char *func, long func_line,
		      long site_line, int at_exit)
{
	fprintf(arg, "site\t%d\t%d\t%ld\t%ld\t%s\n", id, at_exit, func_line, site_line, func);
}

static void plan_read(void *arg, const struct go_spec_read *rd)
{
	FILE *f = arg;
	int flags = (rd->is_len ? JW_READ_LEN : 0) | (rd->nil_test == 1 ? JW_READ_NIL : 0) |
		    (rd->nil_test == 2 ? JW_READ_NOT_NIL : 0);

	fprintf(f, "read\t%d\t%d\t%ld\t%c\t%d\t%d\t%d\t%s", rd->site, rd->slot, rd->line,
		rd->kind == PROBE_KIND_SIGNED ? 's' : rd->kind == PROBE_KIND_BOOL ? 'b' : 'u',
		rd->size, flags, rd->word, rd->expr);
	for (int i = 0; i < rd->nnames; i++)
		fprintf(f, "\t%s", rd->names[i] ? rd->names[i] : "-");
	fputc('\n', f);
}

/* An expression is one word: a tab in it would break the plan's line. */
static int write_plan(struct jvm_engine *e, struct go_spec *spec, struct cap_err *err)
{
	static const struct go_spec_visit v = { plan_site, plan_read };
	FILE *f = fopen(e->plan, "w");
	int rc;

	if (!f)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "%s: %s", e->plan, strerror(errno));
	fprintf(f, "%s\n", JW_PLAN_HEAD);
	rc = go_spec_layout(spec, &v, f, err);
	if (fclose(f) && !rc)
		rc = cap_fail(err, EXIT_CAPTURE_FAILED, "%s: %s", e->plan, strerror(errno));
	return rc;
}

struct jvm_engine *jvm_open(struct go_spec *spec, const char *spec_path, struct cap_err *err)
{
	struct jvm_engine *e;
	char *tmpl;

	if (spec && !jvm_agent_path(err))
		return NULL;
	e = xcalloc(1, sizeof(*e));
	e->fd = -1;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->changed, NULL);
	tmpl = owned_tmp_in(temp_dir(), "capture-jvm");
	e->cleanup = mkdtemp_on_failure(tmpl);
	if (e->cleanup < 0) {
		cap_fail(err, EXIT_CAPTURE_FAILED, "%s: %s", tmpl, strerror(errno));
		free(tmpl);
		free(e);
		return NULL;
	}
	e->dir = tmpl;
	e->plan = xasprintf("%s/plan", e->dir);
	e->fifo = xasprintf("%s/fifo", e->dir);
	e->spec_path = xstrdup(spec_path);
	if ((spec && write_plan(e, spec, err)) || mkfifo(e->fifo, 0600) ||
	    (e->fd = open(e->fifo, O_RDWR | O_CLOEXEC)) < 0) {
		if (!spec || err->code == 0)
			cap_fail(err, EXIT_CAPTURE_FAILED, "%s: %s", e->fifo, strerror(errno));
		jvm_close(e);
		return NULL;
	}
	/* A larger pipe: JVMs writing at once wait less for the reader. */
	fcntl(e->fd, F_SETPIPE_SZ, 1 << 20);
	return e;
}

void jvm_close(struct jvm_engine *e)
{
	if (!e)
		return;
	if (e->fd >= 0)
		close(e->fd);
	remove_tree(e->dir);
	cancel_on_failure(e->cleanup);
	strbuf_release(&e->text);
	free(e->dir);
	free(e->plan);
	free(e->fifo);
	free(e->spec_path);
	free(e->option);
	free(e);
}

const char *jvm_agent_option(struct jvm_engine *e, const char *mode)
{
	struct cap_err err;
	const char *agent = jvm_agent_path(&err);

	free(e->option);
	e->option = xasprintf("-agentpath:%s=mode=%s,plan=%s,out=%s", agent ? agent : "",
			      mode, e->plan, e->fifo);
	return e->option;
}

/* The first failure wins; the reader goes on draining (so no JVM waits on it). */
static __attribute__((format(printf, 3, 4)))
void fail(struct jvm_engine *e, enum exit_code code, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (e->failed)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	va_end(ap);
	cap_fail(&e->err, code, "%s", msg);
	free(msg);
	e->failed = 1;
}

static struct jvm *jvm_of(struct jvm_engine *e, pid_t pid)
{
	for (int i = 0; i < e->njvms; i++)
		if (e->jvm[i].pid == pid)
			return &e->jvm[i];
	if (e->njvms == MAX_JVMS)
		return NULL;
	e->jvm[e->njvms] = (struct jvm){ .pid = pid };
	return &e->jvm[e->njvms++];
}

static int read_full(int fd, void *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t r = read(fd, (char *)buf + off, n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

/* "LINE\tWHY" of a refusal or failure, as "SPEC:LINE: WHY". */
static void said(struct jvm_engine *e, enum exit_code code, const char *text)
{
	char *end;
	long line = strtol(text, &end, 10);

	if (*end == '\t')
		end++;
	if (line > 0)
		fail(e, code, "%s:%ld: %s", e->spec_path, line, end);
	else if (*e->spec_path)
		fail(e, code, "%s: %s", e->spec_path, end);
	else
		fail(e, code, "%s", end);
}

/* One message: checked, counted, a record handed over. */
static void message(struct jvm_engine *e, const struct jw_head *h, const char *body)
{
	struct jvm *j = jvm_of(e, (pid_t)h->pid);
	struct gp_record r = { 0 };
	unsigned long long n;

	if (!j)
		return fail(e, EXIT_CAPTURE_FAILED, "more than %d JVMs", MAX_JVMS);
	if (h->seq != j->next)
		return fail(e, EXIT_CAPTURE_FAILED, "JVM %u: message %llu where %llu was due: "
			    "messages were lost", h->pid, (unsigned long long)h->seq, j->next);
	j->next++;
	e->stats.messages++;
	switch (h->kind) {
	case JW_HELLO:
		j->hello = 1;
		e->stats.jvms++;
		if (e->fn && !e->failed) {
			r.site = GP_SITE_EXEC;
			r.pid = h->pid;
			e->fn(&r, e->arg);
		}
		break;
	case JW_RECORD:
		if (h->len > sizeof(r))
			return fail(e, EXIT_CAPTURE_FAILED, "JVM %u: a record of %u bytes", h->pid, h->len);
		memcpy(&r, body, h->len);
		e->stats.records++;
		if (e->fn && !e->failed)
			e->fn(&r, e->arg);
		break;
	case JW_REFUSE:
		said(e, EXIT_BAD_INPUT, body);
		break;
	case JW_FAIL:
		said(e, EXIT_CAPTURE_FAILED, body);
		break;
	case JW_END:
		memcpy(&n, body, sizeof(n));
		j->ended = 1;
		if (n != h->seq)
			fail(e, EXIT_CAPTURE_FAILED, "JVM %u: its agent sent %llu messages, %llu arrived",
			     h->pid, n, (unsigned long long)h->seq);
		break;
	case JW_TEXT:
		strbuf_add(&e->text, body, h->len);
		break;
	default:
		fail(e, EXIT_CAPTURE_FAILED, "JVM %u: a message of kind %u", h->pid, h->kind);
	}
}

/* Messages until capture's own stop; 0, or -1 when the FIFO breaks. */
static int drain(struct jvm_engine *e)
{
	char body[JW_MAX + 1];
	struct jw_head h;

	for (;;) {
		if (read_full(e->fd, &h, sizeof(h)) ||
		    h.magic != JW_MAGIC || h.len > JW_MAX - sizeof(h) ||
		    read_full(e->fd, body, h.len)) {
			fail(e, EXIT_CAPTURE_FAILED, "%s: a broken message: the agents' stream is lost",
			     e->fifo);
			return -1;
		}
		body[h.len] = 0;
		if (h.kind == JW_STOP && h.pid == (uint32_t)getpid())
			return 0;
		pthread_mutex_lock(&e->lock);
		message(e, &h, body);
		pthread_cond_broadcast(&e->changed);
		pthread_mutex_unlock(&e->lock);
	}
}

static void *reader(void *arg)
{
	struct jvm_engine *e = arg;

	drain(e);
	return NULL;
}

void jvm_start(struct jvm_engine *e, gp_record_fn fn, void *arg)
{
	e->fn = fn;
	e->arg = arg;
	if (pthread_create(&e->reader, NULL, reader, e))
		die(EXIT_CAPTURE_FAILED, "pthread_create: %s", strerror(errno));
	e->reading = 1;
}

int jvm_wait_hello(struct jvm_engine *e, pid_t pid, double timeout_s)
{
	double deadline = monotonic_seconds() + timeout_s;
	int ok = 0;

	pthread_mutex_lock(&e->lock);
	while (!ok && monotonic_seconds() < deadline) {
		struct timespec ts;

		for (int i = 0; i < e->njvms; i++)
			ok |= e->jvm[i].pid == pid && e->jvm[i].hello;
		if (ok)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e->changed, &e->lock, &ts);
	}
	pthread_mutex_unlock(&e->lock);
	return ok ? 0 : -1;
}

void jvm_killed(struct jvm_engine *e, pid_t pid)
{
	pthread_mutex_lock(&e->lock);
	for (int i = 0; i < e->njvms; i++)
		if (e->jvm[i].pid == pid)
			e->jvm[i].killed = 1;
	pthread_mutex_unlock(&e->lock);
}

/* Capture's own message, behind every one written before. */
static void send_stop(struct jvm_engine *e)
{
	struct jw_head h = { .magic = JW_MAGIC, .kind = JW_STOP, .pid = (uint32_t)getpid() };

	if (write_all(e->fd, &h, sizeof(h)))
		die(EXIT_CAPTURE_FAILED, "%s: %s", e->fifo, strerror(errno));
}

int jvm_stop(struct jvm_engine *e, struct cap_err *err)
{
	if (e->reading) {
		send_stop(e);
		pthread_join(e->reader, NULL);
		e->reading = 0;
	}
	for (int i = 0; i < e->njvms && !e->failed; i++)
		if (e->jvm[i].hello && !e->jvm[i].ended && !e->jvm[i].killed)
			fail(e, EXIT_CAPTURE_FAILED, "JVM %d ended without its agent's last message "
			     "(killed by a signal?): what it did last may be lost", (int)e->jvm[i].pid);
	if (!e->failed)
		return 0;
	*err = e->err;
	return -1;
}

/* JAVA_TOOL_OPTIONS with the agent first: every JVM @argv starts loads it. */
static void tool_options(struct jvm_engine *e, const char *mode)
{
	const char *had = getenv("JAVA_TOOL_OPTIONS");
	char *v = xasprintf("%s%s%s", jvm_agent_option(e, mode), had && *had ? " " : "",
			    had ? had : "");

	setenv("JAVA_TOOL_OPTIONS", v, 1);
	free(v);
}

/*
 * @argv run to its end, its output discarded, each of its JVMs' agents
 * set by JAVA_TOOL_OPTIONS to end them when they have said what they had
 * to say: 0, or -1 with what they refused, or that no JVM started.
 */
static int run_agents(struct jvm_engine *e, char *const argv[], const char *example,
		      struct cap_err *err)
{
	struct proc p;
	struct proc_result r;
	int rc;

	jvm_start(e, NULL, NULL);
	proc_start(&p, (const char *const *)argv, "/dev/null", "/dev/null");
	proc_poll(&p, &r, 1);
	unsetenv("JAVA_TOOL_OPTIONS");
	rc = jvm_stop(e, err);
	if (!rc && !e->stats.jvms)
		rc = cap_fail(err, EXIT_USAGE, "%s started no JVM with the agent (exit %d): "
			      "name a java command (%s)", argv[0], r.status, example);
	return rc;
}

int jvm_check(struct jvm_engine *e, char *const argv[], struct cap_err *err)
{
	int rc;

	tool_options(e, "check");
	rc = run_agents(e, argv, "java -cp ... MAIN, or a script that runs one", err);
	/* a check's JVMs are done: the run's are numbered afresh */
	memset(e->jvm, 0, sizeof(e->jvm));
	e->njvms = 0;
	e->stats = (struct jvm_stats){ 0 };
	return rc;
}

int jvm_run(struct jvm_engine *e, char *const argv[], double timeout_s,
	    gp_record_fn fn, void *arg, struct cap_err *err)
{
	double deadline = monotonic_seconds() + timeout_s;
	struct proc p;
	struct proc_result r;
	int done;

	tool_options(e, "run");
	jvm_start(e, fn, arg);
	proc_start(&p, (const char *const *)argv, NULL, NULL);
	while (!(done = proc_poll(&p, &r, 0)) && (!timeout_s || monotonic_seconds() < deadline))
		usleep(20000);
	unsetenv("JAVA_TOOL_OPTIONS");
	if (!done)
		proc_stop(&p);
	if (jvm_stop(e, err))
		return -1;
	if (!done)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "%s did not end within %g s: killed",
				argv[0], timeout_s);
	if (!r.exited)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "%s was killed by signal %d", argv[0],
				r.status);
	return r.status;
}

const struct jvm_stats *jvm_stats(const struct jvm_engine *e)
{
	return &e->stats;
}

int jvm_describe(const char *what, char *const argv[], FILE *out, struct cap_err *err)
{
	struct jvm_engine *e;
	char *opt;
	int rc;

	if (!jvm_agent_path(err) || !(e = jvm_open(NULL, "", err)))
		return -1;
	opt = xasprintf("-agentpath:%s=mode=describe,what=%s,out=%s", jvm_agent_path(err),
			what, e->fifo);
	setenv("JAVA_TOOL_OPTIONS", opt, 1);
	free(opt);
	rc = run_agents(e, argv, "java -cp CLASSPATH -version", err);
	if (!rc && e->text.len)
		fwrite(e->text.buf, 1, e->text.len, out);
	jvm_close(e);
	return rc;
}
