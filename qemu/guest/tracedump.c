// SPDX-License-Identifier: MIT
/*
 * tracedump: the guest's side of the trace channel.  Runs in the guest
 * (built statically on the host, qemu/helper.c), after the scenario:
 * reads what the host needs to decode the kernel's ftrace ring buffer and
 * writes it, framed, to the second debug console (port 0x4e9):
 *
 *	CAPTURE TRACE
 *	FILE <path under tracefs> <length>\n<length bytes>	(repeated)
 *	CAPTURE TRACE END <number of files>\n
 *
 * The files: events/header_page, every events/SYSTEM/EVENT/format of the systems
 * named on the command line, and per CPU its stats (the overrun counts)
 * and trace_pipe_raw (the ring-buffer pages, read without blocking until
 * empty).  Bytes are passed through as read: the host decodes them with
 * libtraceevent.
 *
 * With -w FIFO it stays resident: it ships the header and the formats
 * (what does not depend on the run) at once, opens the per-CPU files,
 * then goes to the background and returns, so that a snapshot saved next
 * holds it waiting; the end of a write to FIFO (guest.sh) wakes it to ship
 * the per-CPU files, and it answers on FIFO "ok", or "failed: why".  With
 * -p PARAMS (a module's /sys/module/M/parameters, opened before going to
 * the background too) it also runs the scenario first: the FIFO's write is
 * its name, steps and stop word, a line each, which it writes into the
 * module's parameters before writing start (see open_params()).
 *
 * A guest restored from a snapshot thus execs nothing and opens no file
 * to run its scenario and ship its ring buffer: under TCG a restored
 * guest has no translated code, so every new program costs its loading
 * and its C library's start-up again, and every kernel path it runs (a
 * path lookup, a sysfs or tracefs open) its translation again.  The host
 * keeps the part shipped before the snapshot beside it (qemu/snapshot.c).
 * What runs after the wake uses no stdio and no printf: glibc's
 * formatting code was most of what shipping the ring buffer ran (~15 ms
 * of QEMU's CPU a capture, docs/results/spin.md).
 *
 * usage: tracedump [-w FIFO [-p PARAMS]] TRACEFS SYSTEM...
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/uio.h>
#include <unistd.h>

#define TRACE_PORT 0x4e9
#define CHUNK 4096
#define MAX_CPUS 64
#define USAGE "usage: tracedump [-w FIFO [-p PARAMS]] TRACEFS SYSTEM..."

/* Resident (-w): where the waiting half answers. */
static const char *answer_fifo;

static void answer(const char *what, const char *why)
{
	int fd = open(answer_fifo, O_WRONLY);

	if (fd >= 0) {
		struct iovec v[] = { { (char *)what, strlen(what) },
			{ ": ", why ? 2 : 0 }, { (char *)(why ? why : ""), why ? strlen(why) : 0 },
			{ "\n", 1 } };

		writev(fd, v, 4);
		close(fd);
	}
}

static void fail(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tracedump: %s\n", why);
	if (answer_fifo)
		answer("failed", why);
	exit(1);
}

static void put(const void *buf, size_t len)
{
	outsb(TRACE_PORT, buf, len);
}

static void puts_port(const char *s)
{
	put(s, strlen(s));
}

/* @n in decimal, in @buf. */
static const char *decimal(size_t n, char buf[24])
{
	char *p = buf + 23;

	*p = '\0';
	do
		*--p = '0' + n % 10;
	while (n /= 10);
	return p;
}

/*
 * The whole of @fd (tracefs sizes are 0: read to the end), read from @at
 * on (a stats file opened before a snapshot is read from its start; -1:
 * where it is).  A trace_pipe_raw is opened non-blocking: it ends when the
 * buffer is empty.
 */
static char *slurp(int fd, const char *path, off_t at, size_t *len)
{
	size_t cap = CHUNK;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		fail("out of memory");
	*len = 0;
	for (;;) {
		if (cap - *len < CHUNK && !(buf = realloc(buf, cap *= 2)))
			fail("out of memory");
		n = at < 0 ? read(fd, buf + *len, CHUNK) :
			     pread(fd, buf + *len, CHUNK, at + *len);
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			fail("cannot read %s: %s", path, strerror(errno));
		if (n == 0)
			break;
		*len += n;
	}
	return buf;
}

static int open_file(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | flags);

	if (fd < 0)
		fail("cannot open %s: %s", path, strerror(errno));
	return fd;
}

static int nfiles;

/* @a/@b into @out (of @size): snprintf is the printf code (see above). */
static void join(char *out, size_t size, const char *a, const char *b)
{
	if (strlen(a) + strlen(b) + 2 > size)
		fail("path too long");
	strcpy(out, a);
	strcat(out, "/");
	strcat(out, b);
}

/* FILE @rel and the bytes of @fd (see slurp()). */
static void ship_fd(const char *rel, int fd, off_t at)
{
	char num[24], *buf;
	size_t len;

	buf = slurp(fd, rel, at, &len);
	puts_port("FILE ");
	puts_port(rel);
	puts_port(" ");
	puts_port(decimal(len, num));
	puts_port("\n");
	put(buf, len);
	free(buf);
	nfiles++;
}

static void ship(const char *root, const char *rel)
{
	char path[1024];
	int fd;

	join(path, sizeof(path), root, rel);
	fd = open_file(path, 0);
	ship_fd(rel, fd, -1);
	close(fd);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every event's format of @sys, in name order. */
static void ship_formats(const char *root, const char *sys)
{
	char dir[512], rel[768], path[1024];
	struct dirent **ents;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/events/%s", root, sys);
	n = scandir(dir, &ents, NULL, by_name);
	if (n < 0)
		fail("no trace system %s: %s", sys, strerror(errno));
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, ents[i]->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		if (ents[i]->d_name[0] != '.' && !access(path, R_OK))
			ship(root, rel);
		free(ents[i]);
	}
	free(ents);
}

/*
 * Block until a writer of @fifo has written and closed it; what it wrote,
 * NUL-terminated, in @buf.
 */
static void wait_for(const char *fifo, char *buf, size_t size)
{
	int fd = open(fifo, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		fail("cannot open %s: %s", fifo, strerror(errno));
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0 || len == size - 1)
		fail("cannot read %s: %s", fifo, n < 0 ? strerror(errno) : "too long");
	buf[len] = '\0';
	close(fd);
}

/*
 * With -p, the module's parameters, opened before the snapshot like the
 * buffers below: the scenario's words come on the FIFO and this process
 * writes them and starts the run, so that a restored guest opens no sysfs
 * file (a lookup, an inode, a truncation: all translated anew, docs/results/spin.md).
 * stop is optional (rwlock's module has none).
 */
enum { NAME, STEPS, STOP, START, NPARAMS };
static const char *const param_names[NPARAMS] = { "name", "steps", "stop", "start" };
static int param_fd[NPARAMS];

static void open_params(const char *dir)
{
	char path[1024];

	for (int i = 0; i < NPARAMS; i++) {
		join(path, sizeof(path), dir, param_names[i]);
		param_fd[i] = open(path, O_WRONLY);
		if (param_fd[i] < 0 && (i != STOP || errno != ENOENT))
			fail("cannot open %s: %s", path, strerror(errno));
	}
}

static void set_param(int i, const char *value)
{
	size_t len = strlen(value);

	if (param_fd[i] < 0)
		fail("the module has no %s parameter", param_names[i]);
	if (write(param_fd[i], value, len) != (ssize_t)len)
		fail("cannot write the module's %s: %s", param_names[i], strerror(errno));
}

/*
 * @words: the name, the steps and the stop word (maybe empty), a line
 * each.  The write to start returns once the module has run and reported
 * the scenario.
 */
static void run_scenario(char *words)
{
	char *line[3];

	for (int i = 0; i < 3; i++) {
		line[i] = words;
		words = strchr(words, '\n');
		if (!words)
			fail("the scenario's words are not three lines");
		*words++ = '\0';
	}
	set_param(NAME, line[0]);
	set_param(STEPS, line[1]);
	if (*line[2])
		set_param(STOP, line[2]);
	set_param(START, "1");
}

/*
 * Each CPU's stats (the overrun counts) and ring-buffer pages, opened
 * before the run: a resident tracedump opens them before the snapshot, so
 * that a restored guest runs no path lookup, no access() and no open of
 * tracefs (each path TCG translates anew after a restore, docs/results/spin.md).
 */
struct cpu_files {
	char stats[32], raw[40];
	int stats_fd, raw_fd;
};

static struct cpu_files cpus[MAX_CPUS];
static int ncpus;

static void open_buffers(const char *root)
{
	char dir[512], path[1024], num[24];
	struct cpu_files *c;

	for (;;) {
		if (ncpus == MAX_CPUS)
			fail("more than %d CPUs", MAX_CPUS);
		c = &cpus[ncpus];
		strcpy(c->stats, "per_cpu/cpu");
		strcat(c->stats, decimal(ncpus, num));
		join(dir, sizeof(dir), root, c->stats);
		if (access(dir, F_OK))
			break;
		join(c->raw, sizeof(c->raw), c->stats, "trace_pipe_raw");
		strcat(c->stats, "/stats");
		join(path, sizeof(path), root, c->stats);
		c->stats_fd = open_file(path, 0);
		join(path, sizeof(path), root, c->raw);
		c->raw_fd = open_file(path, O_NONBLOCK);
		ncpus++;
	}
}

static void ship_buffers(void)
{
	char num[24];

	for (int i = 0; i < ncpus; i++) {
		ship_fd(cpus[i].stats, cpus[i].stats_fd, 0);
		ship_fd(cpus[i].raw, cpus[i].raw_fd, -1);
	}
	puts_port("CAPTURE TRACE END ");
	puts_port(decimal(nfiles, num));
	puts_port("\n");
}

/* A word getopt would refuse: its message, then the usage. */
static void bad_option(const char *prog, const char *why, char c)
{
	fprintf(stderr, "%s: %s -- '%c'\n", prog, why, c);
	fail(USAGE);
}

/*
 * The options -w FIFO and -p PARAMS ("-wFIFO" too) as glibc's getopt
 * reads them, anywhere before "--"; the operands moved, in order, to
 * argv[1...]: their count.  Three words are all there is to read: no
 * getopt and its global state.
 */
static int read_options(int argc, char **argv, const char **fifo,
			const char **params)
{
	int n = 0, i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			argv[++n] = a;
			continue;
		}
		if (a[1] != 'w' && a[1] != 'p')
			bad_option(argv[0], "invalid option", a[1]);
		if (!a[2] && i + 1 == argc)
			bad_option(argv[0], "option requires an argument", a[1]);
		*(a[1] == 'w' ? fifo : params) = a[2] ? a + 2 : argv[++i];
	}
	for (i++; i < argc; i++)
		argv[++n] = argv[i];
	return n;
}

int main(int argc, char **argv)
{
	const char *fifo = NULL, *params = NULL;
	static char words[8192];
	int operands = read_options(argc, argv, &fifo, &params);
	pid_t pid;

	if (operands < 1 || (params && !fifo))
		fail(USAGE);
	if (ioperm(TRACE_PORT, 1, 1))
		fail("ioperm: %s", strerror(errno));
	puts_port("CAPTURE TRACE\n");
	ship(argv[1], "events/header_page");
	for (int i = 2; i <= operands; i++)
		ship_formats(argv[1], argv[i]);
	open_buffers(argv[1]);
	if (params)
		open_params(params);
	if (fifo) {
		pid = fork();
		if (pid < 0)
			fail("fork: %s", strerror(errno));
		if (pid > 0)
			return 0;
		answer_fifo = fifo;
		wait_for(fifo, words, sizeof(words));
		if (params)
			run_scenario(words);
	}
	ship_buffers();
	if (!fifo)
		return 0;
	answer("ok", NULL);
	/* Nothing is buffered: exit without stdio's clean-up code. */
	_exit(0);
}
