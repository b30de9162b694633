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
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

#define STATIC_LIBC "/usr/lib/x86_64-linux-gnu/libc.a"

static void compile(const char *name, const char *src, const char *out)
{
	char *log = guest_cache_path("last-run/%s-build.log", name);
	const char *argv[] = { "cc", "-std=c11", "-D_GNU_SOURCE", "-Wall",
		"-Wextra", "-Werror", "-Os", "-static", "-s", "-o", out, src, NULL };
	struct proc_result r;

	progress("building guest helper %s", name);
	r = proc_run(argv, log, log, 120);
	if (!r.exited || r.status)
		die(EXIT_ENV_MISSING, "building guest helper %s failed (log: %s); "
		    "run 'make deps' (build-essential)", name, log);
	free(log);
}

char *guest_helper_build(const char *src)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char *name = xasprintf("%.*s", (int)strcspn(base, "."), base);
	char key[17], *out, *tmp;
	int cleanup;

	if (!file_exists(STATIC_LIBC))
		die(EXIT_ENV_MISSING, "no %s: run 'make deps' (libc6-dev)", STATIC_LIBC);
	sha256_key((const char *const[]){ src, STATIC_LIBC, NULL }, key);
	out = guest_cache_path("helpers/%s-%s", name, key);
	if (file_exists(out)) {
		free(name);
		return out;
	}
	tmp = cache_tmp_name(out);
	cleanup = remove_on_failure(tmp);
	compile(name, src, tmp);
	cache_commit(tmp, out);
	cancel_on_failure(cleanup);
	free(tmp);
	free(name);
	return out;
}
