/* SPDX-License-Identifier: MIT */
/* Helpers the guest runner's files share (not part of its interface). */
#ifndef QEMU_CACHE_H
#define QEMU_CACHE_H

#include "../capture/err.h"
#include "../capture/json.h"

/*
 * FINAL.tmp-PID: built there, then renamed into place.  What a dead
 * process left as FINAL.tmp-PID (or FINAL.tmp-PID.MORE) goes first.
 */
char *cache_tmp_name(const char *final);
int cache_commit(const char *tmp, const char *final, struct cap_err *err);

/*
 * First line of @argv's stdout; NULL and @err (of kind @code, with its
 * stderr's first line) if it fails.
 */
char *command_output(int code, const char *const argv[], struct cap_err *err);

/*
 * 16 hex digits of the sha256 over the base names and contents of @parts;
 * -1 and @err if one cannot be read.
 */
int sha256_key(const char *const parts[], char key[17], struct cap_err *err);

#endif
