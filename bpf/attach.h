/* SPDX-License-Identifier: MIT */
/*
 * The engine's second attach path (not part of its interface, engine.h):
 * every probe site of a target as one uprobe_multi link, through the raw
 * bpf(BPF_LINK_CREATE), which libbpf 1.1 (Debian 12) has no call for.
 */
#ifndef GOPROBE_ATTACH_H
#define GOPROBE_ATTACH_H

#include <sys/types.h>
#include "engine.h"

struct cap_err;

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
