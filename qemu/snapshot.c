// SPDX-License-Identifier: MIT
/*
 * Guest snapshots (snapshot.h): a guest booted once to /init's ready point
 * is saved through QMP "migrate" to a file; every later run restores it
 * with -incoming instead of booting the kernel again.  Beside it, what the
 * guest shipped on its trace channel before it was saved, which each run's
 * channel continues.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <fcntl.h>
#include <sys/un.h>
#include <unistd.h>
#include <cJSON.h>
#include "../capture/die.h"
#include "../capture/proc.h"
#include "cache.h"
#include "snapshot.h"

/* How long one QMP answer may take (a migration is polled, not awaited). */
#define QMP_REPLY_S 10
#define POLL_US 20000
/*
 * A snapshot of a slot under another key is stale once unused this long:
 * two checkouts sharing a cache (their initramfs differ) each keep theirs
 * instead of saving anew at every turn.
 */
#define STALE_S 3600

/* 16 hex digits of the sha256 of @text into @hex. */
static void digest(const char *text, char hex[17])
{
	char full[65];

	sha256_hex(text, strlen(text), full);
	memcpy(hex, full, 16);
	hex[16] = '\0';
}

/*
 * What a snapshot depends on: QEMU and its version, the kernel image and
 * the initramfs (their cache names are content keys), the guest's CPUs,
 * the accelerator, the kernel command line.  Their digest is the key.  The
 * file is SLOT-KEY.vm, SLOT the digest of what makes another guest rather
 * than a newer one (the QEMU binary's path, the CPUs, the accelerator, the
 * kernel command line, which names the guest's module): a new snapshot of
 * a slot makes the others of that slot stale.
 */
char *snapshot_path(const struct guest_boot *b, const char *accel,
		    const char *append, char key[17], struct cap_err *err)
{
	const char *argv[] = { guest_qemu(), "--version", NULL };
	char *qemu = command_output(EXIT_ENV_MISSING, argv, err), *text, *path;
	char slot[17];
	const char *kernel = strrchr(b->vmlinux, '/'), *initrd = strrchr(b->initrd, '/');

	if (!qemu)
		return NULL;
	text = xasprintf("%s\n%d\n%s\n%s\n", guest_qemu(), b->cpus, accel, append);
	digest(text, slot);
	free(text);
	text = xasprintf("%s\n%s\n%s\n%s\n%d\n%s\n%s\n", guest_qemu(), qemu,
			 kernel ? kernel + 1 : b->vmlinux,
			 initrd ? initrd + 1 : b->initrd, b->cpus, accel, append);
	digest(text, key);
	free(text);
	free(qemu);
	path = cache_path(err, "snapshot/%s-%s.vm", slot, key);
	if (path) {
		/* What a run killed while it saved this snapshot left. */
		char *trace = snapshot_trace_path(path);

		remove_stale_tmps(path);
		remove_stale_tmps(trace);
		free(trace);
	}
	return path;
}

/* The trace channel's part saved beside @snapshot: SLOT-KEY.trace. */
char *snapshot_trace_path(const char *snapshot)
{
	size_t n = strlen(snapshot) - strlen(".vm");

	return xasprintf("%.*s.trace", (int)n, snapshot);
}

int snapshot_take(const char *snapshot)
{
	char *trace = snapshot_trace_path(snapshot);
	int usable = file_exists(snapshot) && file_exists(trace);

	/* Its time of last use: what tells a stale one (remove_stale()). */
	if (usable)
		utimensat(AT_FDCWD, snapshot, NULL, 0);
	free(trace);
	return usable;
}

void snapshot_remove(const char *snapshot)
{
	char *trace = snapshot_trace_path(snapshot);

	remove(snapshot);
	remove(trace);
	free(trace);
}

/* Was @path last used (saved or restored) more than STALE_S ago? */
static int unused(const char *path, time_t now)
{
	struct stat st;

	return !stat(path, &st) && now - st.st_mtime > STALE_S;
}

/*
 * Remove the snapshots of @snapshot's slot under another key (made of
 * another QEMU, kernel or initramfs) unused for STALE_S; a trace part
 * goes with its snapshot, or alone; temporaries are left to their owners.
 */
static void remove_stale(const char *snapshot)
{
	const char *base = strrchr(snapshot, '/') + 1;
	char *dir = xasprintf("%.*s", (int)(base - snapshot), snapshot);
	size_t slot = strcspn(base, "-") + 1, self = strlen(base) - strlen(".vm");
	DIR *d = opendir(dir);
	time_t now = time(NULL);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		const char *ext = strrchr(e->d_name, '.');
		char *path, *vm;

		if (strncmp(e->d_name, base, slot) || !strncmp(e->d_name, base, self) ||
		    !ext || (strcmp(ext, ".vm") && strcmp(ext, ".trace")))
			continue;
		path = xasprintf("%s%s", dir, e->d_name);
		vm = xasprintf("%s%.*s.vm", dir, (int)(ext - e->d_name), e->d_name);
		if (unused(vm, now) || (!file_exists(vm) && unused(path, now)))
			remove(path);
		free(vm);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

int snapshot_commit(const char *tmp, const char *trace_tmp, const char *snapshot,
		    struct cap_err *err)
{
	char *trace = snapshot_trace_path(snapshot);
	/* The trace part first: a snapshot file without it is not used. */
	int ret = cache_commit(trace_tmp, trace, err);

	if (!ret)
		ret = cache_commit(tmp, snapshot, err);
	if (!ret)
		remove_stale(snapshot);
	free(trace);
	return ret;
}

int snapshot_join_trace(const char *snapshot, const char *rest, const char *out,
			struct cap_err *err)
{
	char *trace = snapshot_trace_path(snapshot);
	size_t head_len, rest_len;
	char *head = read_file(trace, &head_len), *tail = read_file(rest, &rest_len);
	FILE *f = head && tail ? fopen(out, "wb") : NULL;
	int ret = 0;

	if (!f)
		ret = cap_fail(err, EXIT_CAPTURE_FAILED, "cannot join %s and %s into %s: %s",
			       trace, rest, out, strerror(errno));
	else if (fwrite(head, 1, head_len, f) != head_len ||
		 fwrite(tail, 1, rest_len, f) != rest_len || fclose(f))
		ret = cap_fail(err, EXIT_CAPTURE_FAILED, "cannot write %s: %s", out,
			       strerror(errno));
	/* Nothing half-written, whether the caller dies or goes on. */
	if (ret && f)
		remove(out);
	if (!ret)
		remove(rest);
	free(head);
	free(tail);
	free(trace);
	return ret;
}

/* @path quoted for sh: QEMU runs exec: URIs with /bin/sh -c. */
static char *sh_quoted(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "'");
	for (const char *p = path; *p; p++)
		strbuf_addstr(&sb, *p == '\'' ? "'\\''" : (char[]){ *p, 0 });
	strbuf_addstr(&sb, "'");
	return sb.buf;
}

char *snapshot_incoming(const char *path)
{
	char *quoted = sh_quoted(path), *uri = xasprintf("exec:cat %s", quoted);

	free(quoted);
	return uri;
}

/* A QMP connection: its socket and what was read past the last line. */
struct qmp {
	int fd;
	char buf[8192];
	size_t len;
};

static int qmp_connect(struct qmp *q, const char *sock)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = QMP_REPLY_S };

	q->len = 0;
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		return -1;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock);
	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(q->fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(q->fd);
		return -1;
	}
	return 0;
}

/* The next JSON object QEMU sent (one a line), NULL on EOF or timeout. */
static cJSON *qmp_read(struct qmp *q)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		ssize_t n;

		if (nl) {
			cJSON *obj;

			*nl = '\0';
			obj = cJSON_Parse(q->buf);
			q->len -= (size_t)(nl + 1 - q->buf);
			memmove(q->buf, nl + 1, q->len);
			if (obj)
				return obj;
			continue;
		}
		if (q->len == sizeof(q->buf))
			return NULL;
		n = read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (n <= 0)
			return NULL;
		q->len += (size_t)n;
	}
}

/*
 * Send @cmd (a JSON object, consumed) and return its answer's "return"
 * (the caller frees *@answer), skipping events; NULL with *@problem set
 * on an error.
 */
static cJSON *qmp_call(struct qmp *q, cJSON *cmd, cJSON **answer, char **problem)
{
	char *text = cJSON_PrintUnformatted(cmd);
	size_t len = strlen(text);
	int sent = write(q->fd, text, len) == (ssize_t)len;

	cJSON_Delete(cmd);
	free(text);
	*answer = NULL;
	while (sent && (*answer = qmp_read(q))) {
		cJSON *ret = cJSON_GetObjectItemCaseSensitive(*answer, "return");
		cJSON *err = cJSON_GetObjectItemCaseSensitive(*answer, "error");

		if (ret)
			return ret;
		if (err) {
			cJSON *desc = cJSON_GetObjectItemCaseSensitive(err, "desc");

			*problem = xasprintf("QMP: %s", cJSON_IsString(desc) ?
					     desc->valuestring : "error");
			return NULL;
		}
		cJSON_Delete(*answer);
	}
	*problem = xasprintf("QMP: no answer from QEMU");
	return NULL;
}

static cJSON *command(const char *name)
{
	cJSON *cmd = cJSON_CreateObject();

	cJSON_AddStringToObject(cmd, "execute", name);
	return cmd;
}

/* Run QMP command @cmd for its effect: NULL, or what went wrong. */
static char *qmp_do(struct qmp *q, cJSON *cmd)
{
	char *problem = NULL;
	cJSON *answer;

	qmp_call(q, cmd, &answer, &problem);
	cJSON_Delete(answer);
	return problem;
}

/* The migration's status once it is no longer running; NULL or a problem. */
static char *migration_end(struct qmp *q)
{
	for (;;) {
		char *problem = NULL, *status;
		cJSON *answer, *ret = qmp_call(q, command("query-migrate"), &answer, &problem);
		cJSON *s = ret ? cJSON_GetObjectItemCaseSensitive(ret, "status") : NULL;

		if (!ret) {
			cJSON_Delete(answer);
			return problem;
		}
		status = xstrdup(cJSON_IsString(s) ? s->valuestring : "?");
		cJSON_Delete(answer);
		if (!strcmp(status, "completed")) {
			free(status);
			return NULL;
		}
		if (strcmp(status, "active") && strcmp(status, "setup") &&
		    strcmp(status, "device")) {
			problem = xasprintf("the migration ended %s", status);
			free(status);
			return problem;
		}
		free(status);
		usleep(POLL_US);
	}
}

/* Migrate the guest into @out, quit QEMU. */
static char *save(const char *sock, const char *out)
{
	struct qmp q;
	cJSON *greeting, *migrate = command("migrate"), *args = cJSON_CreateObject();
	char *quoted = sh_quoted(out), *uri = xasprintf("exec:cat > %s", quoted);
	char *problem;

	cJSON_AddStringToObject(args, "uri", uri);
	cJSON_AddItemToObject(migrate, "arguments", args);
	free(uri);
	free(quoted);
	if (qmp_connect(&q, sock)) {
		cJSON_Delete(migrate);
		return xasprintf("cannot connect to QMP at %s: %s", sock, strerror(errno));
	}
	greeting = qmp_read(&q);
	problem = greeting ? qmp_do(&q, command("qmp_capabilities")) :
		  xasprintf("QMP: no greeting from QEMU");
	cJSON_Delete(greeting);
	/*
	 * Migrated running (it stops the guest once the rest is copied): a
	 * guest stopped first would restore stopped, waiting for a "cont".
	 */
	if (!problem)
		problem = qmp_do(&q, migrate);
	else
		cJSON_Delete(migrate);
	if (!problem)
		problem = migration_end(&q);
	/* The file is whole: QEMU may close before it answers "quit". */
	if (!problem)
		free(qmp_do(&q, command("quit")));
	close(q.fd);
	return problem;
}

char *snapshot_save(struct proc *qemu, const char *sock, const char *out)
{
	char *problem = save(sock, out);
	struct proc_result r;

	if (problem)
		proc_stop(qemu);
	else
		proc_poll(qemu, &r, 1);
	return problem;
}
