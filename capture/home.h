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

#endif
