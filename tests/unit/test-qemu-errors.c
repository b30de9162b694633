// SPDX-License-Identifier: MIT
/*
 * The qemu/ builders return their failures (capture/err.h) instead of
 * dying, and leave nothing half-written in the cache: each case below
 * would have ended the process before; here the test goes on, reads the
 * kind and the message the command would print, and looks in the cache.
 * The cache is a fresh directory, so nothing is reused from a real one.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/err.h"
#include "capture/proc.h"
#include "qemu/guest.h"
#include "unit.h"

static char cache[] = "/tmp/test-qemu-errors-XXXXXX";

/* CACHE/@sub holds no entry: a failed build left nothing behind. */
static void expect_empty(const char *name, const char *sub)
{
	char *path = xasprintf("%s/%s", cache, sub);
	DIR *d = opendir(path);
	struct dirent *e;
	const char *left = NULL;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			left = e->d_name;
	if (!d)
		fail(name, "no directory %s", path);
	else if (left)
		fail(name, "%s left in %s", left, path);
	else
		pass(name);
	if (d)
		closedir(d);
	free(path);
}

/* A file @name in the cache's scratch directory with @text in it. */
static char *scratch(const char *name, const char *text)
{
	char *path = xasprintf("%s/scratch/%s", cache, name);

	write_file(path, text, strlen(text));
	return path;
}

static void helper_fails(void)
{
	char *bad = scratch("bad.c", "int main(void) { return missing; }\n");
	char *want;
	struct cap_err err;

	check("a helper from no source: NULL",
	      !guest_helper_build("/nonexistent/x.c", &err), "built");
	expect_err("a helper from no source", &err, EXIT_ENV_MISSING,
	       "cannot read /nonexistent/x.c");
	check("a helper that does not compile: NULL",
	      !guest_helper_build(bad, &err), "built");
	want = xasprintf("building guest helper bad failed (log: %s/last-run/"
			 "bad-build.log); run 'make deps' (build-essential)", cache);
	expect_err("a helper that does not compile", &err, EXIT_ENV_MISSING, want);
	expect_empty("a helper that does not compile: nothing in helpers/",
		     "helpers");
	free(want);
	free(bad);
}

static void module_fails(void)
{
	/* Headers that are no kernel's: a .config, no Makefile. */
	char *config = scratch("headers/.config", "CONFIG_X=y\n");
	char *src = scratch("m.c", "\n");
	struct guest_kernel k = {
		.abi = "0-test", .version = "1",
		.headers_dir = xasprintf("%s/scratch/headers", cache),
	};
	char sha[65], *want;
	struct cap_err err;

	check("a module of a missing file: NULL",
	      !guest_module_build(&k, "m", (const char *const[]){
		      "/nonexistent/m.c", NULL }, sha, &err), "built");
	expect_err("a module of a missing file", &err, EXIT_ENV_MISSING,
	       "cannot read /nonexistent/m.c");
	check("a module the headers cannot build: NULL",
	      !guest_module_build(&k, "m", (const char *const[]){ src, NULL },
				  sha, &err), "built");
	want = xasprintf("building module m failed (log: %s/last-run/m-module-"
			 "build.log); are linux-headers-0-test and gcc installed? "
			 "run 'make deps'", cache);
	expect_err("a module the headers cannot build", &err, EXIT_ENV_MISSING, want);
	expect_empty("a module the headers cannot build: nothing in modules/",
		     "modules");
	free(want);
	free(k.headers_dir);
	free(src);
	free(config);
}

static void initramfs_fails(void)
{
	struct guest_file files[] = { { "/nonexistent/f", "f" } };
	char sha[65];
	struct cap_err err;

	check("an initramfs of a missing file: NULL",
	      !guest_initramfs(files, 1, sha, &err), "built");
	expect_err("an initramfs of a missing file", &err, EXIT_ENV_MISSING,
	       "cannot read /nonexistent/f");
	expect_empty("an initramfs of a missing file: nothing in initramfs/",
		     "initramfs");
}

int main(void)
{
	char *sub;

	if (!mkdtemp(cache)) {
		fail("a fresh cache", "cannot create %s", cache);
		return 1;
	}
	setenv("CAPTURE_CACHE", cache, 1);
	for (int i = 0; i < 4; i++) {
		sub = xasprintf("%s/%s", cache, (const char *[]){ "scratch/headers",
				"helpers", "modules", "initramfs" }[i]);
		mkdir_p(sub);
		free(sub);
	}
	helper_fails();
	module_fails();
	initramfs_fails();
	remove_tree(cache);
	return unit_status();
}
