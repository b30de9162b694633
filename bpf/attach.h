/* SPDX-License-Identifier: MIT */
/*
 * How the engine's probes attach (engine.h includes it): the path this
 * process's runs take, a uprobe_multi link or perf-event uprobes; and the
 * uprobe_multi path itself, every probe site of a target as one link,
 * through the raw bpf(BPF_LINK_CREATE), which libbpf 1.1 (Debian 12) has
 * no call for.
 */
#ifndef GOPROBE_ATTACH_H
#define GOPROBE_ATTACH_H

#include <sys/types.h>

struct cap_err;

/*
 * How the probes attach: every site of a target as one uprobe_multi link
 * (Linux 6.6 and later), detached in one step; or a perf-event uprobe per
 * site, each detach a kernel RCU wait (~0.1 s here).
 */
enum gp_attach { GP_ATTACH_PERF, GP_ATTACH_MULTI };

/*
 * The path of this process's runs, decided once: CAPTURE_UPROBE=multi or
 * perf forces it; else the verdict cached for the running kernel (under
 * capture's cache directory, capture/home.h); else found by trying a
 * uprobe_multi link, and cached (if there is a cache directory).  -1 and
 * @err if BPF refuses the try (check gp_may_probe() first, engine.h).
 */
int gp_attach_path(enum gp_attach *how, struct cap_err *err);
/* "uprobe_multi" or "perf_event", as manifests record it ("attach"). */
const char *gp_attach_name(enum gp_attach how);

/*
 * The kernel's BPF_TRACE_UPROBE_MULTI (enum bpf_attach_type, Linux 6.6):
 * the program's expected attach type on this path.  Debian 12's
 * linux-libc-dev (6.1) has no such value.
 */
#define GP_TRACE_UPROBE_MULTI 48

/* The link's flag that makes its probes uretprobes (BPF_F_UPROBE_MULTI_RETURN). */
#define GP_UPROBE_MULTI_RETURN 1

/*
 * One link of program @prog_fd at the @n file offsets @offs of @path,
 * site @cookies[i] at @offs[i], in process @pid (0: every process), each
 * a uretprobe if @flags has GP_UPROBE_MULTI_RETURN: its file descriptor
 * (closing it detaches every site at once), or -1 with errno.
 */
int gp_uprobe_multi_link(int prog_fd, const char *path, const unsigned long *offs,
			 const unsigned long long *cookies, unsigned n, pid_t pid,
			 unsigned flags);

/*
 * A program that returns at once, loaded for path @how: its file
 * descriptor, or -1 with errno.  What trying the kernel attaches, and the
 * bare trap bench/ebpf-overhead measures.
 */
int gp_empty_program(enum gp_attach how);

#endif
