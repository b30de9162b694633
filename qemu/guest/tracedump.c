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
 * usage: tracedump TRACEFS SYSTEM...
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

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("tracedump: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
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

int main(int argc, char **argv)
{
	char rel[64], dir[512];

	if (argc < 2)
		fail("usage: tracedump TRACEFS SYSTEM...");
	if (ioperm(TRACE_PORT, 1, 1))
		fail("ioperm: %s", strerror(errno));
	putf("CAPTURE TRACE\n");
	ship(argv[1], "events/header_page", 0);
	for (int i = 2; i < argc; i++)
		ship_formats(argv[1], argv[i]);
	for (int cpu = 0;; cpu++) {
		snprintf(dir, sizeof(dir), "%s/per_cpu/cpu%d", argv[1], cpu);
		if (access(dir, F_OK))
			break;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
		ship(argv[1], rel, 0);
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		ship(argv[1], rel, 1);
	}
	putf("CAPTURE TRACE END %d\n", nfiles);
	return 0;
}
