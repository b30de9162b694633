// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include "die.h"
#include "err.h"
#include "proc.h"

/* How long a timed-out child has between SIGTERM and SIGKILL. */
#define STOP_GRACE_S 5

static void redirect(const char *path, int fd)
{
	int f;

	if (!path)
		return;
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f < 0 || dup2(f, fd) < 0)
		_exit(127);
}

double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* When this process started (its first constructor): where phase() counts from. */
static double started;

__attribute__((constructor)) static void mark_start(void)
{
	started = monotonic_seconds();
}

#define MAX_PHASES 16
static struct {
	const char *name;
	double begin, end;
} phases[MAX_PHASES];
static int nphases;
static double last_end;		/* phase()'s: where the next one begins */
static pthread_mutex_t phase_lock = PTHREAD_MUTEX_INITIALIZER;

static void record_phase(const char *name, double begin, double end)
{
	pthread_mutex_lock(&phase_lock);
	if (nphases < MAX_PHASES) {
		phases[nphases].name = name;
		phases[nphases].begin = begin ? begin : started;
		phases[nphases++].end = end;
	}
	pthread_mutex_unlock(&phase_lock);
}

void phase_span(const char *name, double begin)
{
	record_phase(name, begin, monotonic_seconds());
}

void phase(const char *name)
{
	double begin = last_end;

	last_end = monotonic_seconds();
	record_phase(name, begin, last_end);
}

void phases_report(const char *what)
{
	char line[1536] = "";
	size_t n = 0;

	if (!getenv("CAPTURE_PHASES") || !*getenv("CAPTURE_PHASES"))
		return;
	pthread_mutex_lock(&phase_lock);
	for (int i = 0; i < nphases && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %.3f s (%.3f-%.3f)",
				      i ? ", " : "", phases[i].name,
				      phases[i].end - phases[i].begin,
				      phases[i].begin - started, phases[i].end - started);
	pthread_mutex_unlock(&phase_lock);
	progress("phases: %s; %s %.3f s after capture's start", line, what,
		 monotonic_seconds() - started);
}


/*
 * Exec @argv in a child that dies with us, even by SIGKILL.  A vfork
 * child (proc_start): no fork handler runs, so the exit signals capture
 * blocks for its signal thread are unblocked here (none has a handler:
 * that thread takes them by sigwait).
 */
static _Noreturn void child(const char *const argv[], const char *out_path,
			    const char *err_path, pid_t parent)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	redirect(out_path, 1);
	redirect(err_path, 2);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

/* SIGTERM first, so a capture rerun by verify removes its temporaries. */
static void stop_group(pid_t pid, int *status)
{
	double deadline = monotonic_seconds() + STOP_GRACE_S;
	pid_t w;

	kill(-pid, SIGTERM);
	while ((w = waitpid(pid, status, WNOHANG)) == 0 && monotonic_seconds() < deadline)
		usleep(10000);
	kill(-pid, SIGKILL);
	if (w != pid)
		waitpid(pid, status, 0);
}

/*
 * Dying, we take the child's process group (QEMU, go, docker) with us,
 * as a timeout does: SIGTERM first, so that a capture rerun by verify
 * removes its own temporaries.  Reaped, so that no child still works in
 * what later cleanups remove.
 */
static void kill_group(void *pid)
{
	int status;

	stop_group((pid_t)(long)pid, &status);
}

/*
 * vfork, not fork: the child only sets itself up and execs, and a fork
 * of the sanitizer build (its shadow memory mapped) cost ~14 ms of page
 * tables a child, most of the system time of an exploration's tries.
 */
void proc_start(struct proc *p, const char *const argv[], const char *out_path,
		const char *err_path)
{
	pid_t parent = getpid();

	fflush(NULL);
	/*
	 * Started and registered as one step: a child started once a signal's
	 * cleanups run would work on in what they remove, unstopped.
	 */
	cleanups_hold();
	p->pid = vfork();
	if (p->pid < 0)
		die(EXIT_CAPTURE_FAILED, "vfork: %s", strerror(errno));
	if (!p->pid)
		child(argv, out_path, err_path, parent);
	setpgid(p->pid, p->pid);
	p->cleanup = on_failure(kill_group, (void *)(long)p->pid);
	cleanups_release();
}

static struct proc_result result_of(int status)
{
	struct proc_result r = { 0 };

	r.exited = WIFEXITED(status);
	r.status = r.exited ? WEXITSTATUS(status) : WTERMSIG(status);
	return r;
}

int proc_poll(struct proc *p, struct proc_result *r, int block)
{
	int status;
	pid_t w;

	do
		w = waitpid(p->pid, &status, block ? 0 : WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		die(EXIT_CAPTURE_FAILED, "waitpid: %s", strerror(errno));
	if (!w)
		return 0;
	cancel_on_failure(p->cleanup);
	*r = result_of(status);
	return 1;
}

void proc_stop(struct proc *p)
{
	int status;

	stop_group(p->pid, &status);
	cancel_on_failure(p->cleanup);
}

struct proc_result proc_run(const char *const argv[], const char *out_path,
			    const char *err_path, double timeout_s)
{
	struct proc_result r = { 0 };
	double deadline = monotonic_seconds() + timeout_s;
	struct proc p;

	proc_start(&p, argv, out_path, err_path);
	while (!proc_poll(&p, &r, timeout_s <= 0)) {
		if (monotonic_seconds() > deadline) {
			proc_stop(&p);
			r.timed_out = 1;
			return r;
		}
		usleep(10000);
	}
	return r;
}

int proc_ok(enum exit_code code, const char *const argv[],
	    const char *out_path, struct cap_err *err)
{
	struct proc_result r = proc_run(argv, out_path, NULL, 0);

	if (!r.exited || r.status)
		return cap_fail(err, code, "'%s' failed (%s %d)", argv[0],
				r.exited ? "exit" : "signal", r.status);
	return 0;
}

void proc_must(int code, const char *const argv[], const char *out_path)
{
	struct cap_err err;

	if (proc_ok(code, argv, out_path, &err))
		die_err(&err);
}

int have_program(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	int found = 0;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	dirs = xstrdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, prog);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(dirs);
	return found;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, alloc = 0, got;

	if (!f)
		return NULL;
	do {
		if (alloc - n < 65536) {
			alloc = alloc * 2 + 65536;
			buf = xrealloc(buf, alloc + 1);
		}
		got = fread(buf + n, 1, alloc - n, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int write_all(int fd, const void *p, size_t len)
{
	const char *at = p;

	while (len) {
		ssize_t n = write(fd, at, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		at += n;
		len -= (size_t)n;
	}
	return 0;
}

void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	/* empty data may be NULL, which fwrite may not take */
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		die(EXIT_CAPTURE_FAILED, "cannot write %s: %s", path, strerror(errno));
}

int copy_file(const char *src, const char *dst)
{
	size_t len;
	char *data = read_file(src, &len);

	if (!data)
		return -1;
	write_file(dst, data, len);
	free(data);
	return 0;
}

/*
 * @path made absolute with every symbolic link resolved, whether or not it
 * exists: the real path of its deepest existing ancestor, then the rest.
 */
static char *real_path_of(const char *path)
{
	char *real = realpath(path, NULL), *copy, *parent, *out;

	if (real || errno != ENOENT)
		return real;
	copy = xstrdup(path);
	parent = real_path_of(dirname(copy));
	free(copy);
	if (!parent)
		return NULL;
	copy = xstrdup(path);
	out = xasprintf("%s/%s", strcmp(parent, "/") ? parent : "", basename(copy));
	free(copy);
	free(parent);
	return out;
}

/* How an output and an input overlap (resolved paths). */
enum overlap { SAME = 1, HOLDS = 2, INSIDE = 4 };

static enum overlap overlaps(const char *out, const char *in)
{
	size_t no = strlen(out), ni = strlen(in);

	if (!strcmp(out, in))
		return SAME;
	if (ni > no && !strncmp(in, out, no) && in[no] == '/')
		return HOLDS;
	return no > ni && !strncmp(out, in, ni) && out[ni] == '/' ? INSIDE : 0;
}

/* Dies if @out overlaps one of the @n @inputs in a way of @refused. */
static void refuse_overlap(const char *out, char *const inputs[], int n,
			   unsigned refused, const char *same)
{
	char *real_out = real_path_of(out);
	struct stat so, si;
	int have_out = !stat(out, &so);

	for (int i = 0; i < n && real_out; i++) {
		char *real_in = strcmp(inputs[i], "-") ? realpath(inputs[i], NULL) : NULL;
		enum overlap how = real_in ? overlaps(real_out, real_in) & refused : 0;

		if (real_in && !how && have_out && !stat(real_in, &si) &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			how = SAME;   /* a hard link */
		free(real_in);
		if (how) {
			free(real_out);
			die(EXIT_USAGE, "output %s %s input %s: give another output",
			    out, how == SAME ? same : how == HOLDS ?
			    "would replace" : "lies inside", inputs[i]);
		}
	}
	free(real_out);
}

void refuse_output_over_inputs(const char *out, char *const inputs[], int n,
			       int out_inside)
{
	refuse_overlap(out, inputs, n, SAME | HOLDS | (out_inside ? INSIDE : 0),
		       "would replace");
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISLNK(mode) ? "a symbolic link" :
	       S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* The directory output @path goes into exists and can be written. */
static void check_output_parent(const char *path)
{
	char *copy = xstrdup(path);
	const char *dir = dirname(copy);
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		die(EXIT_USAGE, "output %s: no directory %s", path, dir);
	if (access(dir, W_OK | X_OK))
		die(EXIT_USAGE, "output %s: cannot write in %s: %s", path, dir,
		    strerror(errno));
	free(copy);
}

/*
 * A wrong output path is a wrong command line, told before any work: the
 * rename that puts the file in place would replace whatever @path names,
 * so only a regular file (or nothing) may be there.
 */
void check_output_file(const char *path, char *const inputs[], int n,
		       int replace)
{
	struct stat st;

	/* "-" is standard output where a command says so (convert), else no file */
	if (!strcmp(path, "-"))
		die(EXIT_USAGE, "output -: standard output is no file here: give a "
		    "file name");
	check_output_parent(path);
	if (lstat(path, &st))
		return;
	if (!S_ISREG(st.st_mode))
		die(EXIT_USAGE, "output %s is %s: not replacing it", path,
		    file_kind(st.st_mode));
	refuse_output_over_inputs(path, inputs, n, 0);
	if (!replace)
		die(EXIT_USAGE, "output %s exists: not replacing it without "
		    "--force", path);
}

/* @path without its trailing slashes (a copy): "out/" lstat()s where it points. */
static char *without_slashes(const char *path)
{
	char *p = xstrdup(path);
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return p;
}

/*
 * A directory output is written into, never replaced: it may hold an
 * input (each file is checked), but may not be one or lie inside one.
 * A missing one is made in a directory that exists, as a file output.
 */
void check_output_dir_of_files(const char *dir, char *const inputs[], int n,
			       const char *what)
{
	char *d;
	struct stat st;

	if (!strcmp(dir, "-"))
		die(EXIT_USAGE, "output -: %s converts into a directory of files, "
		    "OUT/TRACE.ndjson: give a directory", what);
	d = without_slashes(dir);
	if (!lstat(d, &st)) {
		if (S_ISLNK(st.st_mode))
			die(EXIT_USAGE, "output %s is a symbolic link: not writing "
			    "through it", d);
		if (!S_ISDIR(st.st_mode))
			die(EXIT_USAGE, "output %s is %s, not a directory: %s converts "
			    "into a directory of files", d, S_ISREG(st.st_mode) ?
			    "a regular file" : file_kind(st.st_mode), what);
		if (access(d, W_OK | X_OK))
			die(EXIT_USAGE, "output %s: cannot write in it: %s", d,
			    strerror(errno));
	} else {
		check_output_parent(d);
	}
	refuse_overlap(d, inputs, n, SAME | INSIDE, "would write into");
	free(d);
}

const char *file_name_refused(const char *name)
{
	if (!*name)
		return "it is empty";
	if (*name == '.')
		return "it starts with a dot (., .., a hidden file)";
	if (strchr(name, '/'))
		return "it holds a /";
	if (strlen(name) > FILE_NAME_MAX)
		return "it is longer than " FILE_NAME_MAX_TEXT " bytes";
	return NULL;
}

const char *rel_path_refused(const char *rel)
{
	if (*rel == '/')
		return "it is absolute";
	for (const char *p = rel;; p++) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && *p == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return "a component of it is empty, . or ..";
		p += n;
		if (!*p)
			return NULL;
	}
}

/* Files being written into a directory: their staging directory. */
struct file_set {
	char *dir, *stage;
	int stage_is_dir;    /* the directory was missing: the stage becomes it */
};

/*
 * The files' checks (file outputs', in a directory that exists), before
 * anything is written; then the stage, where they are written: the
 * directory itself when it is missing, else a hidden one inside it (the
 * window reader lists no dot file), both named after this process.
 * Returns the stage's cleanup.
 */
static int file_set_begin(struct file_set *fs, const char *dir,
			  const struct out_file *f, size_t n,
			  char *const inputs[], int ninputs, int replace)
{
	char *base;
	int cleanup;

	fs->dir = without_slashes(dir);
	fs->stage_is_dir = !file_exists(fs->dir);
	for (size_t i = 0; i < n && !fs->stage_is_dir; i++) {
		char *path = xasprintf("%s/%s", fs->dir, f[i].name);

		check_output_file(path, inputs, ninputs, replace);
		free(path);
	}
	base = fs->stage_is_dir ? xstrdup(fs->dir) :
	       xasprintf("%s/.capture", fs->dir);
	remove_stale_tmps(base);
	fs->stage = owned_tmp_name(base);
	free(base);
	cleanup = mkdtemp_on_failure(fs->stage);
	if (cleanup < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", fs->stage,
		    strerror(errno));
	return cleanup;
}

void write_files_atomic(const char *dir, const struct out_file *f, size_t n,
			char *const inputs[], int ninputs, int replace)
{
	struct file_set fs = { 0 };
	int cleanup;

	cleanup = file_set_begin(&fs, dir, f, n, inputs, ninputs, replace);
	for (size_t i = 0; i < n; i++) {
		char *tmp = xasprintf("%s/%s", fs.stage, f[i].name);
		char *path = xasprintf("%s/%s", fs.dir, f[i].name);
		struct stat st;

		write_file(tmp, f[i].data, f[i].len);
		/* a replaced file keeps its mode; a new one has the umask's */
		if (!stat(path, &st) && chmod(tmp, st.st_mode & 07777))
			die(EXIT_CAPTURE_FAILED, "cannot chmod %s: %s", tmp,
			    strerror(errno));
		free(path);
		free(tmp);
	}
	/* all written: now into place, where a signal waits for it */
	cleanups_hold();
	if (fs.stage_is_dir) {
		if (chmod(fs.stage, umasked(0777)) ||
		    renameat2(AT_FDCWD, fs.stage, AT_FDCWD, fs.dir, RENAME_NOREPLACE))
			die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s: %s",
			    fs.stage, fs.dir, strerror(errno));
	} else {
		for (size_t i = 0; i < n; i++) {
			char *tmp = xasprintf("%s/%s", fs.stage, f[i].name);
			char *path = xasprintf("%s/%s", fs.dir, f[i].name);

			if (rename(tmp, path))
				die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s: %s",
				    tmp, path, strerror(errno));
			free(path);
			free(tmp);
		}
		rmdir(fs.stage);
	}
	cancel_on_failure(cleanup);
	cleanups_release();
	free(fs.stage);
	free(fs.dir);
}

/*
 * Read from /proc: umask() can only be read by setting it, and a file
 * another thread creates meanwhile would get the wider mode.
 */
mode_t umasked(mode_t mode)
{
	char *status = read_file("/proc/self/status", NULL);
	const char *at = status ? strstr(status, "\nUmask:") : NULL;
	mode_t mask;

	if (at)
		mask = (mode_t)strtoul(at + strlen("\nUmask:"), NULL, 8);
	else
		umask(mask = umask(022));
	free(status);
	return mode & ~mask;
}

char *owned_tmp_name(const char *path)
{
	return xasprintf("%s.tmp-%ld-XXXXXX", path, (long)getpid());
}

/*
 * The pid in @name if it is "@base.tmp-PID", then nothing (the cache's
 * temporaries), "-XXXXXX" (mkstemp's, mkdtemp's) or ".MORE" (a guest's
 * trace part, "KEY.trace.tmp-PID.RUN.ACCEL"); else 0.
 */
static long owner_of(const char *name, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long pid;

	if (strncmp(name, base, n) || strncmp(name + n, ".tmp-", 5))
		return 0;
	pid = strtol(name + n + 5, &end, 10);
	if (pid <= 0 || end == name + n + 5 ||
	    (*end && *end != '.' && (*end != '-' || strlen(end + 1) != 6)))
		return 0;
	return pid;
}

/*
 * Could process @pid still write?  kill(pid, 0) fails with ESRCH only if
 * no such process is there; a zombie (killed, not yet reaped: a rerun
 * that died with its verify) is there but writes nothing.
 */
static int lives(pid_t pid)
{
	char *stat = xasprintf("/proc/%ld/stat", (long)pid), *text;
	const char *end;
	int alive = 1;

	if (kill(pid, 0) && errno == ESRCH)
		alive = 0;
	else if ((text = read_file(stat, NULL))) {
		end = strrchr(text, ')');   /* "PID (COMM) STATE ...", COMM any bytes */
		alive = !end || (end[1] != ' ' || (end[2] != 'Z' && end[2] != 'X'));
		free(text);
	}
	free(stat);
	return alive;
}

void remove_stale_tmps(const char *path)
{
	char *copy = xstrdup(path), *dcopy = xstrdup(path);
	const char *base = basename(copy), *dir = dirname(dcopy);
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		long pid = owner_of(de->d_name, base);
		struct stat st;
		char *stale;

		if (!pid || lives((pid_t)pid))
			continue;
		stale = xasprintf("%s/%s", dir, de->d_name);
		/* Ours only: in a shared $TMPDIR, another user's stays theirs. */
		if (!lstat(stale, &st) && st.st_uid == geteuid()) {
			progress("removing %s, left by process %ld, which is gone",
				 stale, pid);
			remove_tree(stale);
		}
		free(stale);
	}
	if (d)
		closedir(d);
	free(copy);
	free(dcopy);
}

const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

char *owned_tmp_in(const char *dir, const char *name)
{
	char *base = xasprintf("%s/%s", dir, name), *tmp;

	remove_stale_tmps(base);
	tmp = owned_tmp_name(base);
	free(base);
	return tmp;
}

void write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp;
	int fd, cleanup;
	struct stat st;
	/* a replaced file keeps its mode; a new one gets the umask's */
	mode_t mode = !stat(path, &st) ? st.st_mode & 07777 : umasked(0666);

	check_output_file(path, NULL, 0, 1);
	remove_stale_tmps(path);
	tmp = owned_tmp_name(path);
	fd = mkstemp_on_failure(tmp, &cleanup);
	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", tmp, strerror(errno));
	close(fd);
	write_file(tmp, data, len);
	if (chmod(tmp, mode) || rename(tmp, path))
		die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s: %s", tmp, path,
		    strerror(errno));
	cancel_on_failure(cleanup);
	free(tmp);
}

int device_refused(const char *path, const char *name, struct cap_err *err)
{
	struct stat st;

	if (!stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		return cap_fail_at(err, EXIT_BAD_INPUT, name, 0,
				   "a device, not a recorded file");
	return 0;
}

void refuse_device(const char *path, const char *name)
{
	struct cap_err err;

	if (device_refused(path, name, &err))
		die_err(&err);
}

int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int mkdir_ok(const char *path, struct cap_err *err)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; *s && !ret; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST)
			ret = cap_fail(err, EXIT_CAPTURE_FAILED, "mkdir %s: %s", p,
				       strerror(errno));
		*s = '/';
	}
	if (!ret && mkdir(p, 0777) && errno != EEXIST)
		ret = cap_fail(err, EXIT_CAPTURE_FAILED, "mkdir %s: %s", p,
			       strerror(errno));
	free(p);
	return ret;
}

void mkdir_p(const char *path)
{
	struct cap_err err;

	if (mkdir_ok(path, &err))
		die_err(&err);
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st; (void)type; (void)ftw;
	remove(path);
	return 0;
}

void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_path(void *path)
{
	remove_tree(path);
}

int remove_on_failure(const char *path)
{
	return on_failure(remove_path, (void *)path);
}

int mkdtemp_on_failure(char *tmpl)
{
	int cleanup = -1;

	cleanups_hold();
	if (mkdtemp(tmpl))
		cleanup = remove_on_failure(tmpl);
	cleanups_release();
	return cleanup;
}

int mkstemp_on_failure(char *tmpl, int *cleanup)
{
	int fd;

	cleanups_hold();
	fd = mkstemp(tmpl);
	if (fd >= 0)
		*cleanup = remove_on_failure(tmpl);
	cleanups_release();
	return fd;
}

void hex_digest(const unsigned char *md, unsigned n, char hex[65])
{
	for (unsigned i = 0; i < n && i < 32; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	hex[64] = '\0';
}

void hashing_init(void)
{
	if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL))
		die(EXIT_CAPTURE_FAILED, "cannot initialize OpenSSL");
}

void sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL))
		die(EXIT_CAPTURE_FAILED, "sha256 failed");
	hex_digest(md, n, hex);
}

int sha256_file_unless(const char *path, char hex[65],
		       const atomic_int *stop)
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	size_t got;
	FILE *f = fopen(path, "rb");
	EVP_MD_CTX *ctx;
	int failed;

	if (!f)
		return -1;
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		die(EXIT_CAPTURE_FAILED, "sha256 failed");
	while ((!stop || !*stop) && (got = fread(buf, 1, sizeof(buf), f)))
		EVP_DigestUpdate(ctx, buf, got);
	EVP_DigestFinal_ex(ctx, md, &n);
	EVP_MD_CTX_free(ctx);
	failed = ferror(f) || (stop && *stop);
	fclose(f);
	if (failed)
		return -1;
	hex_digest(md, n, hex);
	return 0;
}

int sha256_file(const char *path, char hex[65])
{
	return sha256_file_unless(path, hex, NULL);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **list_dir(const char *dir, int (*keep)(const char *name), size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names;

	*n = 0;
	if (!d)
		return NULL;
	names = xcalloc(1, sizeof(*names));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (keep && !keep(de->d_name)))
			continue;
		names = xrealloc(names, (*n + 1) * sizeof(*names));
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), name_cmp);
	return names;
}

void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

int is_identifier(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}
