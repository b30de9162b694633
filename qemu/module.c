// SPDX-License-Identifier: MIT
/*
 * Out-of-tree kernel modules for the guest, built with Kbuild against the
 * headers of the guest's kernel.  The build directory is mapped to a fixed
 * name in the debug info, so the same sources give the same .ko wherever
 * the cache is; builds are cached by the sha256 of their inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

static void copy_into(const char *src, const char *dir)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char *dst = xasprintf("%s/%s", dir, base);

	if (copy_file(src, dst))
		die(EXIT_ENV_MISSING, "cannot read %s", src);
	free(dst);
}

static void build(const struct guest_kernel *k, const char *name,
		  const char *const files[], const char *dir)
{
	char *log = guest_cache_path("last-run/%s-module-build.log", name);
	char *map = xasprintf("KCFLAGS=-ffile-prefix-map=%s=%s", dir, name);
	char *m = xasprintf("M=%s", dir);
	const char *argv[] = { "make", "-C", k->headers_dir, m, map, "modules",
			       NULL };
	struct proc_result r;

	progress("building kernel module %s against %s", name, k->abi);
	remove_tree(dir);
	mkdir_p(dir);
	for (size_t i = 0; files[i]; i++)
		copy_into(files[i], dir);
	r = proc_run(argv, log, log, 600);
	if (!r.exited || r.status)
		die(EXIT_ENV_MISSING, "building module %s failed (log: %s); "
		    "are linux-headers-%s and gcc installed? run 'make deps'",
		    name, log, k->abi);
	free(m);
	free(map);
	free(log);
}

char *guest_module_build(const struct guest_kernel *k, const char *name,
			 const char *const files[], char sha[65])
{
	char key[17], *dir, *tmp, *ko;
	size_t n = 0;
	const char **parts;

	while (files[n])
		n++;
	/* The kernel's version and configuration are inputs too. */
	parts = xcalloc(n + 2, sizeof(*parts));
	memcpy(parts, files, n * sizeof(*parts));
	parts[n] = xasprintf("%s/.config", k->headers_dir);
	sha256_key(parts, key);
	dir = guest_cache_path("modules/%s-%s_%s-%s", name, k->abi, k->version, key);
	ko = xasprintf("%s/%s.ko", dir, name);
	if (!file_exists(ko)) {
		int cleanup;

		tmp = cache_tmp_name(dir);
		cleanup = remove_on_failure(tmp);
		build(k, name, files, tmp);
		/* A concurrent capture may have put the same build there. */
		if (rename(tmp, dir) && !file_exists(ko))
			die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s", tmp, dir);
		remove_tree(tmp);
		cancel_on_failure(cleanup);
		free(tmp);
	}
	if (sha256_file(ko, sha))
		die(EXIT_CAPTURE_FAILED, "module build left no %s", ko);
	free((char *)parts[n]);
	free(parts);
	free(dir);
	return ko;
}
