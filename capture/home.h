/* SPDX-License-Identifier: MIT */
/* Where the source tree is: scenarios/, qemu/, bpf/ ... */
#ifndef CAPTURE_HOME_H
#define CAPTURE_HOME_H

/*
 * $CAPTURE_HOME, else the directory above build/capture (or
 * build/asan/capture) that holds scenarios/.
 */
const char *capture_home(void);

#endif
