// SPDX-License-Identifier: MIT
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "die.h"
#include "err.h"
#include "home.h"
#include "proc.h"

/*
 * The tree of the running executable: the directory above the one holding
 * it (build/capture or build/asan/capture) that has scenarios/.
 */
const char *toolkit_tree(void)
{
	static char tree[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (tree[0])
		return tree;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die(EXIT_ENV_MISSING, "cannot find the capture executable; set CAPTURE_HOME");
	exe[n] = '\0';
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(exe, '/');
		char *probe;

		if (!slash)
			break;
		*slash = '\0';
		probe = xasprintf("%s/scenarios", exe);
		if (file_exists(probe)) {
			free(probe);
			snprintf(tree, sizeof(tree), "%s", exe);
			return tree;
		}
		free(probe);
	}
	die(EXIT_ENV_MISSING, "cannot find the capture source tree; set CAPTURE_HOME");
}

/* The source tree (scenarios/, qemu/, bpf/ ...): $CAPTURE_HOME, else the executable's. */
const char *capture_home(void)
{
	const char *home = getenv("CAPTURE_HOME");

	return home ? home : toolkit_tree();
}

/* Where the cache is (not created here); NULL and @err if nowhere. */
static char *cache_dir(struct cap_err *err)
{
	const char *env;

	if ((env = getenv("CAPTURE_CACHE")) && *env)
		return xstrdup(env);
	if ((env = getenv("XDG_CACHE_HOME")) && *env)
		return xasprintf("%s/capture", env);
	if ((env = getenv("HOME")) && *env)
		return xasprintf("%s/.cache/capture", env);
	cap_fail(err, EXIT_ENV_MISSING, "no cache directory: set CAPTURE_CACHE or HOME");
	return NULL;
}

char *cache_path(struct cap_err *err, const char *fmt, ...)
{
	va_list ap;
	char *dir = cache_dir(err), *rel, *path, *slash;
	int failed;

	if (!dir)
		return NULL;
	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	va_end(ap);
	path = xasprintf("%s/%s", dir, rel);
	free(rel);
	free(dir);
	slash = strrchr(path, '/');
	*slash = '\0';
	failed = mkdir_ok(path, err);
	*slash = '/';
	if (failed) {
		free(path);
		return NULL;
	}
	return path;
}
