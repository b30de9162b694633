// SPDX-License-Identifier: MIT
/*
 * The attach path (attach.h): forced by CAPTURE_UPROBE, else the verdict
 * cached for the running kernel, else found by trying it; and the raw
 * BPF_LINK_CREATE of a uprobe_multi link (attach.h).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/home.h"
#include "../capture/proc.h"
#include "attach.h"

/*
 * union bpf_attr's link_create as far as its uprobe_multi member (Linux
 * 6.6's include/uapi/linux/bpf.h), which the installed 6.1 header lacks:
 * prog_fd, target_fd, attach_type, flags, then the member at offset 16.
 * The kernel reads the size passed and takes the rest as zero.
 */
struct uprobe_multi_attr {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, multi_flags, pid;
};

int gp_uprobe_multi_link(int prog_fd, const char *path, const unsigned long *offs,
			 const unsigned long long *cookies, unsigned n, pid_t pid,
			 unsigned flags)
{
	struct uprobe_multi_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (__u32)prog_fd;
	a.attach_type = GP_TRACE_UPROBE_MULTI;
	a.path = (__u64)(unsigned long)path;
	a.offsets = (__u64)(unsigned long)offs;
	a.cookies = (__u64)(unsigned long)cookies;
	a.cnt = n;
	a.multi_flags = flags;
	a.pid = (__u32)pid;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/*
 * errno of a uprobe_multi link of @prog_fd on "/" for @pid: never a link,
 * since "/" is no regular file.  A kernel that knows uprobe_multi looks
 * the path up and refuses it (EBADF); one that does not refuses the
 * attach type or the attribute's size (EINVAL).
 */
static int link_errno(int prog_fd, pid_t pid)
{
	unsigned long off = 0;
	int fd = gp_uprobe_multi_link(prog_fd, "/", &off, NULL, 1, pid, 0);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

int gp_empty_program(enum gp_attach how)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o);

	if (how == GP_ATTACH_MULTI)
		o.expected_attach_type = (enum bpf_attach_type)GP_TRACE_UPROBE_MULTI;
	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "gp_empty", "GPL", insns, 2, &o);
}

/*
 * Whether this kernel attaches uprobe_multi links as the engine needs:
 * 1 or 0 with @why, -1 and @err if BPF refuses the try itself.  Besides
 * the link, its pid filter must keep to a process, not a thread: a kernel
 * that checks the pid first refuses pid -1 before it looks at the path.
 */
static int try_multi(char *why, size_t n, struct cap_err *err)
{
	int prog = gp_empty_program(GP_ATTACH_MULTI), e1, e2;

	if (prog < 0 && errno == EPERM)
		return cap_fail(err, EXIT_ENV_MISSING, "cannot load a BPF program: %s",
				strerror(errno));
	if (prog < 0) {
		snprintf(why, n, "the kernel refuses a uprobe_multi program: %s",
			 strerror(errno));
		return 0;
	}
	e1 = link_errno(prog, 0);
	e2 = e1 == EBADF ? link_errno(prog, -1) : 0;
	close(prog);
	if (e1 != EBADF)
		snprintf(why, n, "the kernel refuses a uprobe_multi link: %s",
			 strerror(e1));
	else if (e2 != EINVAL)
		snprintf(why, n, "the kernel's uprobe_multi filters by thread, not process");
	else
		snprintf(why, n, "the kernel attaches uprobe_multi links");
	return e1 == EBADF && e2 == EINVAL;
}

/* The verdict's file: one per kernel build (release and version). */
static char *verdict_path(struct cap_err *err)
{
	struct utsname u;
	char *key, hex[65];

	uname(&u);
	key = xasprintf("%s\n%s\n%s\n", u.release, u.version, u.machine);
	sha256_hex(key, strlen(key), hex);
	hex[16] = '\0';
	free(key);
	return cache_path(err, "uprobe/%s", hex);
}

/* A cached verdict ("multi" or "perf", a newline, why): 1, or 0 if none. */
static int load_verdict(const char *path, enum gp_attach *how)
{
	char *text = read_file(path, NULL);
	char *why = text ? strchr(text, '\n') : NULL;
	int multi = why && !strncmp(text, "multi\n", 6);
	int ok = multi || (why && !strncmp(text, "perf\n", 5));

	if (ok) {
		*how = multi ? GP_ATTACH_MULTI : GP_ATTACH_PERF;
		why++;
		why[strcspn(why, "\n")] = '\0';
		progress("uprobes attached as %s: %s (verdict cached in %s)",
			 gp_attach_name(*how), why, path);
	}
	free(text);
	return ok;
}

/* Try, and keep the verdict in @path if there is one. */
static int try_and_keep(const char *path, enum gp_attach *how, struct cap_err *err)
{
	char why[160], *text;
	int yes = try_multi(why, sizeof(why), err);

	if (yes < 0)
		return -1;
	*how = yes ? GP_ATTACH_MULTI : GP_ATTACH_PERF;
	text = xasprintf("%s\n%s\n", yes ? "multi" : "perf", why);
	if (path)
		write_file_atomic(path, text, strlen(text));
	progress("uprobes attached as %s: %s (tried; %s%s)", gp_attach_name(*how), why,
		 path ? "cached in " : "no cache directory", path ? path : "");
	free(text);
	return 0;
}

static int decide(enum gp_attach *how, struct cap_err *err)
{
	static const char *const names[] = { "perf", "multi", NULL };
	int force = env_choice("CAPTURE_UPROBE", names), rc = 0;
	struct cap_err no_cache;
	char *path;

	if (force >= 0) {
		*how = force ? GP_ATTACH_MULTI : GP_ATTACH_PERF;
		progress("uprobes attached as %s: CAPTURE_UPROBE says so", gp_attach_name(*how));
		return 0;
	}
	path = verdict_path(&no_cache);
	if (!path || !load_verdict(path, how))
		rc = try_and_keep(path, how, err);
	free(path);
	return rc;
}

/*
 * Under a lock: the thread that loads the BPF program (gp_preload()) and
 * the command writing its manifest ask at once.
 */
int gp_attach_path(enum gp_attach *how, struct cap_err *err)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int known;
	static enum gp_attach verdict;
	int rc = 0;

	pthread_mutex_lock(&lock);
	if (!known && !(rc = decide(&verdict, err)))
		known = 1;
	*how = verdict;
	pthread_mutex_unlock(&lock);
	return rc;
}

const char *gp_attach_name(enum gp_attach how)
{
	return how == GP_ATTACH_MULTI ? "uprobe_multi" : "perf_event";
}
