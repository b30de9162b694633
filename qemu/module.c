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
#include "../capture/err.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

static int copy_into(const char *src, const char *dir, struct cap_err *err)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char *dst = xasprintf("%s/%s", dir, base);
	int failed = copy_file(src, dst);

	free(dst);
	if (failed)
		return cap_fail(err, EXIT_ENV_MISSING, "cannot read %s", src);
	return 0;
}

static int build(const struct guest_kernel *k, const char *name,
		 const char *const files[], const char *dir, struct cap_err *err)
{
	char *log = cache_path(err, "last-run/%s-module-build.log", name);
	char *map = xasprintf("KCFLAGS=-ffile-prefix-map=%s=%s", dir, name);
	char *m = xasprintf("M=%s", dir);
	const char *argv[] = { "make", "-C", k->headers_dir, m, map, "modules",
			       NULL };
	struct proc_result r;
	int ret = log ? 0 : -1;

	if (ret)
		goto done;
	progress("building kernel module %s against %s", name, k->abi);
	remove_tree(dir);
	ret = mkdir_ok(dir, err);
	for (size_t i = 0; files[i] && !ret; i++)
		ret = copy_into(files[i], dir, err);
	if (!ret) {
		r = proc_run(argv, log, log, 600);
		if (!r.exited || r.status)
			ret = cap_fail(err, EXIT_ENV_MISSING, "building module %s "
				       "failed (log: %s); are linux-headers-%s and "
				       "gcc installed? run 'make deps'",
				       name, log, k->abi);
	}
done:
	free(m);
	free(map);
	free(log);
	return ret;
}

/* Builds into a temporary directory renamed to @dir; -1 and @err on failure. */
static int build_into(const struct guest_kernel *k, const char *name,
		      const char *const files[], const char *dir,
		      const char *ko, struct cap_err *err)
{
	char *tmp = cache_tmp_name(dir);
	int cleanup = remove_on_failure(tmp);
	int ret = build(k, name, files, tmp, err);

	/* A concurrent capture may have put the same build there. */
	if (!ret && rename(tmp, dir) && !file_exists(ko))
		ret = cap_fail(err, EXIT_CAPTURE_FAILED, "cannot rename %s to %s",
			       tmp, dir);
	/* Nothing half-written, whether the caller dies or goes on. */
	remove_tree(tmp);
	cancel_on_failure(cleanup);
	free(tmp);
	return ret;
}

char *guest_module_build(const struct guest_kernel *k, const char *name,
			 const char *const files[], char sha[65],
			 struct cap_err *err)
{
	char key[17], *dir, *ko = NULL;
	size_t n = 0;
	const char **parts;

	while (files[n])
		n++;
	/* The kernel's version and configuration are inputs too. */
	parts = xcalloc(n + 2, sizeof(*parts));
	memcpy(parts, files, n * sizeof(*parts));
	parts[n] = xasprintf("%s/.config", k->headers_dir);
	if (!sha256_key(parts, key, err) &&
	    (dir = cache_path(err, "modules/%s-%s_%s-%s", name, k->abi,
				    k->version, key))) {
		ko = xasprintf("%s/%s.ko", dir, name);
		if (!file_exists(ko) && build_into(k, name, files, dir, ko, err)) {
			free(ko);
			ko = NULL;
		} else if (sha256_file(ko, sha)) {
			cap_fail(err, EXIT_CAPTURE_FAILED, "module build left no %s", ko);
			free(ko);
			ko = NULL;
		}
		free(dir);
	}
	free((char *)parts[n]);
	free(parts);
	return ko;
}
