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
#include <unistd.h>

#define TRACE_PORT 0x4e9
#define CHUNK 4096

/* Resident (-w): where the waiting half answers. */
static const char *answer_fifo;

static void answer(const char *what, const char *why)
{
	FILE *f = fopen(answer_fifo, "w");

	if (f) {
		fprintf(f, "%s%s%s\n", what, why ? ": " : "", why ? why : "");
		fclose(f);
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

static void putf(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line))
		fail("line too long");
	put(line, n);
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

static void ship(const char *root, const char *rel, int nonblock)
{
	char path[1024];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf = slurp(path, nonblock, &len);
	putf("FILE %s %zu\n", rel, len);
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
	char rel[64], dir[512];

	for (int cpu = 0;; cpu++) {
		snprintf(dir, sizeof(dir), "%s/per_cpu/cpu%d", root, cpu);
		if (access(dir, F_OK))
			break;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
		ship(root, rel, 0);
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		ship(root, rel, 1);
	}
	putf("CAPTURE TRACE END %d\n", nfiles);
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
	putf("CAPTURE TRACE\n");
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
	if (fifo)
		answer("ok", NULL);
	return 0;
}
