/* SPDX-License-Identifier: MIT */
/* Where the source tree is: scenarios/, qemu/, bpf/ ... */
#ifndef CAPTURE_HOME_H
#define CAPTURE_HOME_H

/*
 * $CAPTURE_HOME, else the directory above build/capture (or
 * build/asan/capture) that holds scenarios/.
 */
const char *capture_home(void);
/*
 * The source tree the running executable was built in, whatever
 * CAPTURE_HOME says: what belongs to the toolkit itself (a probe spec
 * such as etcd's, like the BPF object built into the executable).
 */
const char *toolkit_tree(void);

struct cap_err;

/*
 * A path under capture's cache directory ($CAPTURE_CACHE, else
 * $XDG_CACHE_HOME/capture, else ~/.cache/capture: verdicts about this host,
 * guest images), @fmt's, with its parent directories created; NULL and
 * @err if there is no cache directory or they cannot be created.
 */
char *cache_path(struct cap_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
