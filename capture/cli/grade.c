// SPDX-License-Identifier: MIT
/*
 * capture grade --exec CMD INPUT...: stream windows to an external grader
 * and score its verdicts.
 *
 * Protocol (docs/audit.md): capture writes one window a line on the
 * grader's stdin, event form, compact JSON; the grader answers each with
 * one line on its stdout before it gets the next: {"ok": true},
 * {"ok": false, "why": "..."} or {"unscoreable": "why"}.  At end of input
 * the grader exits 0.  A grader that dies, stalls past --timeout (in any
 * step: reading a window, answering, exiting) or answers anything else
 * stops the run with a clear error; what it writes is read into a bounded
 * buffer (capture/verdict.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../fold.h"
#include "../audit.h"
#include "command.h"
#include "scorecard.h"
#include "../die.h"
#include "../proc.h"
#include "../json.h"
#include "../options.h"
#include "../verdict.h"
#include "../window-read.h"

static const char grade_usage[] =
	"usage: capture grade --exec CMD [options] INPUT...\n\n"
	"Send every window of the inputs (corpora, directories of window files,\n"
	"window files) to the grader CMD (run by /bin/sh), one window a line in\n"
	"event form on its stdin; read one verdict a line from its stdout:\n"
	"  {\"ok\": true} | {\"ok\": false, \"why\": \"...\"} | {\"unscoreable\": \"...\"}\n"
	"Prints the scorecard per action: pass rate, pass rate on state-changing\n"
	"windows, identity base rate, unscoreable windows.  Exit 0 when every\n"
	"scored window passed, 4 when some failed, 6 when the grader crashed or\n"
	"timed out, 3 when it answered something that is not a verdict (one JSON\n"
	"object a line, nothing else; one line a window, at most 64 KB).\n\n"
	"With --tlc SPEC.tla, TLC grades them against a TLA+ spec instead\n"
	"(capture grade --tlc SPEC.tla --help).\n";

struct grader {
	const char *cmd;
	pid_t pid;
	int in, out;              /* its stdin (we write), its stdout (we read) */
	double timeout;
	struct verdict_lines *lines; /* what it wrote past the last verdict */
	int cleanup;              /* on_failure() handle: kill it if we die */
};

static void kill_grader(void *arg)
{
	struct grader *g = arg;
	pid_t pid = g->pid;   /* once: reap() may zero it meanwhile */

	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		g->pid = 0;
	}
}

static void start(struct grader *g)
{
	int to[2], from[2];
	pid_t parent = getpid();

	if (pipe(to) || pipe(from))
		die(EXIT_CAPTURE_FAILED, "pipe: %s", strerror(errno));
	fflush(NULL);
	/* started and registered as one step, as proc_start() does */
	cleanups_hold();
	g->pid = fork();
	if (g->pid < 0)
		die(EXIT_CAPTURE_FAILED, "fork: %s", strerror(errno));
	if (!g->pid) {
		setpgid(0, 0);
		/* A SIGKILLed grade takes its grader's shell with it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]); close(to[1]); close(from[0]); close(from[1]);
		execl("/bin/sh", "sh", "-c", g->cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(g->pid, g->pid);
	close(to[0]);
	close(from[1]);
	g->in = to[1];
	g->out = from[0];
	/* A window is written as the grader reads it, never blocking past --timeout. */
	fcntl(g->in, F_SETFL, O_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	g->lines = xcalloc(1, sizeof(*g->lines));
	g->cleanup = on_failure(kill_grader, g);
	cleanups_release();
}

/*
 * Wait until @deadline for the grader to exit, then kill its process group
 * (what it left running, or itself if it is still there) and reap it.
 * How it ended, for messages (@late: what it did if it outlived @deadline).
 */
static char *reap(struct grader *g, double deadline, const char *late_how)
{
	/* A signal's cleanup (kill_grader()) may reap it and zero g->pid. */
	pid_t pid = g->pid;
	siginfo_t si;
	int status, late = 0;

	/* kill(-0) would be our own process group, the caller's shell too. */
	if (pid <= 0)
		return xstrdup("ended");
	for (;;) {
		si.si_pid = 0;
		/* WNOWAIT: a zombie leader keeps its group's id from reuse. */
		if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) ||
		    si.si_pid)
			break;
		if (monotonic_seconds() >= deadline) {
			late = 1;
			break;
		}
		usleep(10000);
	}
	kill(-pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return xstrdup("ended");
	g->pid = 0;
	if (late)
		return xasprintf("%s within %g s (killed)", late_how, g->timeout);
	if (WIFSIGNALED(status))
		return xasprintf("was killed by signal %d", WTERMSIG(status));
	return xasprintf("exited with status %d", WEXITSTATUS(status));
}

static _Noreturn void crashed(struct grader *g, const struct window *w,
			      double deadline)
{
	char *how = reap(g, deadline, "hung up and did not exit");

	die_at(EXIT_CAPTURE_FAILED, w->file, w->line,
	       "the grader '%s' %s before answering this window", g->cmd, how);
}

/* Wait until @fd is ready for @events; 0 once @deadline has passed. */
static int ready(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int ms = (int)((deadline - monotonic_seconds()) * 1000), n;

		if (ms <= 0)
			return 0;
		n = poll(&p, 1, ms);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			die(EXIT_CAPTURE_FAILED, "poll: %s", strerror(errno));
	}
}

static void send_window(struct grader *g, const struct window *w,
			double deadline)
{
	cJSON *v = json_obj();
	struct strbuf sb = STRBUF_INIT;
	size_t off = 0;

	json_add(v, "action", json_str(w->action));
	json_add(v, "data", json_dup(w->data));
	json_add(v, "pre_state", json_dup(w->pre));
	json_add(v, "post_state", json_dup(w->post));
	json_write(&sb, v, JSON_COMPACT);
	strbuf_add(&sb, "\n", 1);
	while (off < sb.len) {
		ssize_t n = write(g->in, sb.buf + off, sb.len - off);

		if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
			if (!ready(g->in, POLLOUT, deadline))
				die_at(EXIT_CAPTURE_FAILED, w->file, w->line,
				       "the grader '%s' did not read this window "
				       "within %g s", g->cmd, g->timeout);
			continue;
		}
		/* It stopped reading: what it wrote before tells why. */
		if (n < 0)
			break;
		off += n;
	}
	strbuf_release(&sb);
	cJSON_Delete(v);
}

/* The grader's verdict on @w, parsed; @why gets the reason (caller frees). */
static enum verdict read_verdict(struct grader *g, const struct window *w,
				 double deadline, char **why)
{
	struct cap_err err;
	enum verdict d;
	size_t len;
	int got = 0;

	while (!got) {
		size_t room;
		char *to = verdict_room(g->lines, &room);
		ssize_t n;

		if (!ready(g->out, POLLIN, deadline))
			die_at(EXIT_CAPTURE_FAILED, w->file, w->line,
			       "the grader '%s' gave no verdict for this window "
			       "within %g s", g->cmd, g->timeout);
		n = read(g->out, to, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			crashed(g, w, deadline);
		got = verdict_got(g->lines, n, &len, &err);
	}
	if (got < 0 || verdict_parse(g->lines->buf, len, &d, why, &err))
		die_at(err.code, w->file, w->line, "the grader '%s' %s", g->cmd,
		       cap_err_text(&err));
	verdict_done(g->lines);
	return d;
}

/* End of input: the grader says nothing more and exits 0, within --timeout. */
static void finish(struct grader *g)
{
	double deadline = monotonic_seconds() + g->timeout;
	char byte, *how;
	ssize_t n;

	close(g->in);
	g->in = -1;
	while (ready(g->out, POLLIN, deadline) &&
	       (n = read(g->out, &byte, 1)) != 0) {
		if (n > 0)
			die(EXIT_BAD_INPUT, "the grader '%s' wrote more lines than "
			    "there were windows", g->cmd);
		if (errno != EINTR)
			break;
	}
	how = reap(g, deadline, "did not exit");
	if (strcmp(how, "exited with status 0"))
		die(EXIT_CAPTURE_FAILED, "the grader '%s' %s after the last window",
		    g->cmd, how);
	free(how);
	cancel_on_failure(g->cleanup);
	close(g->out);
	free(g->lines);
}

static cJSON *grade(struct grader *g, const struct window_set *ws)
{
	cJSON *card = json_obj(), *actions = json_obj(), *all, *failures;

	json_add(card, "system", json_str(ws->system->name));
	json_add(card, "grader", json_str(g->cmd));
	all = scorecard_new_tally("all");
	failures = json_arr();
	start(g);
	for (size_t f = 0; f < ws->n; f++) {
		for (size_t i = 0; i < ws->files[f].n; i++) {
			const struct window *w = &ws->files[f].w[i];
			double deadline = monotonic_seconds() + g->timeout;
			enum verdict d;
			char *why;

			send_window(g, w, deadline);
			d = read_verdict(g, w, deadline, &why);
			scorecard_record(scorecard_tally(actions, w->action), w, d);
			scorecard_record(all, w, d);
			if (d == VERDICT_FAIL) {
				cJSON *o = json_add(failures, NULL, json_obj());

				json_add(o, "file", json_str(w->file));
				json_add(o, "line", json_int(w->line));
				json_add(o, "action", json_str(w->action));
				json_add(o, "why", json_str(why));
			}
			free(why);
		}
	}
	finish(g);
	json_add(card, "actions", report_values(actions));
	json_add(card, "all", all);
	json_add(card, "failures", failures);
	return card;
}

/* The grader's options into @g, *@system and *@as_json: the first input's index. */
static int grade_options(int argc, char **argv, struct grader *g,
			 const char **system, int *as_json)
{
	const struct opt options[] = {
		OPT_STRING(0, "exec", &g->cmd, "CMD", "the grader command (required)"),
		OPT_SECONDS(0, "timeout", &g->timeout, "SECS", 1e7, "longest the "
			    "grader may take to read a window and\nanswer it, or to "
			    "exit at the end (default 10);\nthen it is killed with "
			    "its process group"),
		OPT_STRING(0, "system", system, "NAME", "the system (default: from "
			   "the inputs)"),
		OPT_FLAG(0, "json", as_json, "the scorecard as JSON"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { grade_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);

	if (!g->cmd || first == argc)
		opt_usage(&cmd, 0);
	return first;
}

int cmd_grade(int argc, char **argv)
{
	struct grader g = { .timeout = 10 };
	struct window_set ws = { 0 };
	const char *system = NULL;
	int first, as_json = 0, failed;
	cJSON *card;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--tlc") || !strncmp(argv[i], "--tlc=", 6))
			return cmd_grade_tlc(argc, argv);
	first = grade_options(argc, argv, &g, &system, &as_json);
	for (int i = first; i < argc; i++)
		window_set_add(&ws, argv[i]);
	window_set_system(&ws, system);
	card = grade(&g, &ws);
	failed = report_n(json_get(card, "all"), "failed") > 0;
	if (as_json)
		json_print_indented(stdout, card);
	else
		scorecard_print(stdout, card);
	cJSON_Delete(card);
	window_set_free(&ws);
	return failed ? EXIT_CHECK_FAILED : EXIT_OK;
}
