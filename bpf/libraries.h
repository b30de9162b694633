/* SPDX-License-Identifier: MIT */
/*
 * Which file a probe spec's library is (docs/libraries.md): a
 * path as given; a name (libc.so.6) as the target's dynamic linker finds
 * it for the binary (its interpreter's --list: DT_NEEDED, RUNPATH,
 * LD_LIBRARY_PATH, ld.so.cache, as at the target's start), or for a
 * running process as its memory maps have it (/proc/PID/maps).  A
 * library a program loads with dlopen() and does not link is named by
 * its path.  Uprobes are per file, so one placed before the library is
 * mapped is there when it is.
 */
#ifndef LIBRARIES_H
#define LIBRARIES_H

#include <sys/types.h>

struct cap_err;

/*
 * The path of library @name of @binary's process (@pid's if above 0)
 * (caller frees); NULL and @err (EXIT_BAD_INPUT) naming what it links or
 * maps if it has no such library.
 */
char *lib_path(const char *binary, pid_t pid, const char *name, struct cap_err *err);

/* Does @name (a spec's func) name a library, LIB:SYMBOL?  Its length, else 0. */
size_t lib_prefix(const char *name);

#endif
