// SPDX-License-Identifier: MIT
/*
 * Static guest programs (qemu/guest/): compiled on the host with the
 * Debian toolchain against static glibc, stripped, with no path of the
 * build in them, and cached by the sha256 of the source and of the C
 * library they link: the same inputs give the same binary, so the
 * initramfs stays reproducible.
 */
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

#define STATIC_LIBC "/usr/lib/x86_64-linux-gnu/libc.a"

static int compile(const char *name, const char *src, const char *out,
		   struct cap_err *err)
{
	char *log = cache_path(err, "last-run/%s-build.log", name);
	const char *argv[] = { "cc", "-std=c11", "-D_GNU_SOURCE", "-Wall",
		"-Wextra", "-Werror", "-Os", "-static", "-s", "-o", out, src, NULL };
	struct proc_result r;

	if (!log)
		return -1;
	progress("building guest helper %s", name);
	r = proc_run(argv, log, log, 120);
	if (!r.exited || r.status)
		cap_fail(err, EXIT_ENV_MISSING, "building guest helper %s failed "
			 "(log: %s); run 'make deps' (build-essential)", name, log);
	free(log);
	return !r.exited || r.status ? -1 : 0;
}

/* Compiles @src into @out through a temporary name; -1 and @err on failure. */
static int build(const char *name, const char *src, const char *out,
		 struct cap_err *err)
{
	char *tmp = cache_tmp_name(out);
	int cleanup = remove_on_failure(tmp);
	int ret = compile(name, src, tmp, err);

	if (!ret)
		ret = cache_commit(tmp, out, err);
	/* Nothing half-written, whether the caller dies or goes on. */
	if (ret)
		remove(tmp);
	cancel_on_failure(cleanup);
	free(tmp);
	return ret;
}

char *guest_helper_build(const char *src, struct cap_err *err)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char *name = xasprintf("%.*s", (int)strcspn(base, "."), base);
	char key[17], *out = NULL;

	if (!file_exists(STATIC_LIBC))
		cap_fail(err, EXIT_ENV_MISSING, "no %s: run 'make deps' (libc6-dev)",
			 STATIC_LIBC);
	else if (!sha256_key((const char *const[]){ src, STATIC_LIBC, NULL },
			     key, err))
		out = cache_path(err, "helpers/%s-%s", name, key);
	if (out && !file_exists(out) && build(name, src, out, err)) {
		free(out);
		out = NULL;
	}
	free(name);
	return out;
}
