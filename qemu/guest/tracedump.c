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
 * (what does not depend on the run) at once, then goes to the background
 * and returns, so that a snapshot saved next holds it waiting; the end of
 * a write to FIFO (guest.sh, after the scenario) wakes it to ship the
 * per-CPU files, and it answers on FIFO "ok", or "failed: why".  A guest
 * restored from a snapshot thus execs nothing to ship its ring buffer:
 * under TCG a restored guest has no translated code, so every new program
 * costs its loading and its C library's start-up again.  The host keeps
 * the part shipped before the snapshot beside it (qemu/snapshot.c).
 * What runs after the wake uses no stdio and no printf: TCG translates
 * every function a restored guest runs anew, and glibc's formatting code
 * was most of what shipping the ring buffer ran (~15 ms of QEMU's CPU a
 * capture, docs/spin.md).
 *
 * usage: tracedump [-w FIFO] TRACEFS SYSTEM...
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
 * The whole of @path (tracefs sizes are 0: read to the end).  A
 * trace_pipe_raw is opened non-blocking: it ends when the buffer is empty.
 */
static char *slurp(const char *path, int nonblock, size_t *len)
{
	int fd = open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0));
	size_t cap = CHUNK;
	char *buf = malloc(cap);
	ssize_t n;

	if (fd < 0 || !buf)
		fail("cannot open %s: %s", path, strerror(errno));
	*len = 0;
	for (;;) {
		if (cap - *len < CHUNK && !(buf = realloc(buf, cap *= 2)))
			fail("out of memory");
		n = read(fd, buf + *len, CHUNK);
		if (n < 0 && errno == EAGAIN && nonblock)
			break;
		if (n < 0)
			fail("cannot read %s: %s", path, strerror(errno));
		if (n == 0)
			break;
		*len += n;
	}
	close(fd);
	return buf;
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

static void ship(const char *root, const char *rel, int nonblock)
{
	char path[1024], num[24], *buf;
	size_t len;

	join(path, sizeof(path), root, rel);
	buf = slurp(path, nonblock, &len);
	puts_port("FILE ");
	puts_port(rel);
	puts_port(" ");
	puts_port(decimal(len, num));
	puts_port("\n");
	put(buf, len);
	free(buf);
	nfiles++;
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
			ship(root, rel, 0);
		free(ents[i]);
	}
	free(ents);
}

/* Block until a writer of @fifo has written and closed it. */
static void wait_for(const char *fifo)
{
	char buf[64];
	int fd = open(fifo, O_RDONLY);

	if (fd < 0)
		fail("cannot open %s: %s", fifo, strerror(errno));
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* Each CPU's stats (the overrun counts) and ring-buffer pages. */
static void ship_buffers(const char *root)
{
	char cpu_dir[64], rel[96], dir[512], num[24];

	for (size_t cpu = 0;; cpu++) {
		strcpy(cpu_dir, "per_cpu/cpu");
		strcat(cpu_dir, decimal(cpu, num));
		join(dir, sizeof(dir), root, cpu_dir);
		if (access(dir, F_OK))
			break;
		join(rel, sizeof(rel), cpu_dir, "stats");
		ship(root, rel, 0);
		join(rel, sizeof(rel), cpu_dir, "trace_pipe_raw");
		ship(root, rel, 1);
	}
	puts_port("CAPTURE TRACE END ");
	puts_port(decimal(nfiles, num));
	puts_port("\n");
}

int main(int argc, char **argv)
{
	const char *fifo = NULL;
	int opt;
	pid_t pid;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w')
			fail("usage: tracedump [-w FIFO] TRACEFS SYSTEM...");
		fifo = optarg;
	}
	if (argc - optind < 1)
		fail("usage: tracedump [-w FIFO] TRACEFS SYSTEM...");
	if (ioperm(TRACE_PORT, 1, 1))
		fail("ioperm: %s", strerror(errno));
	puts_port("CAPTURE TRACE\n");
	ship(argv[optind], "events/header_page", 0);
	for (int i = optind + 1; i < argc; i++)
		ship_formats(argv[optind], argv[i]);
	if (fifo) {
		pid = fork();
		if (pid < 0)
			fail("fork: %s", strerror(errno));
		if (pid > 0)
			return 0;
		wait_for(fifo);
		answer_fifo = fifo;
	}
	ship_buffers(argv[optind]);
	if (!fifo)
		return 0;
	answer("ok", NULL);
	/* Nothing is buffered: exit without stdio's clean-up code. */
	_exit(0);
}
