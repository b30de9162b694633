// SPDX-License-Identifier: MIT
/*
 * Reproducible initramfs: busybox-static, qemu/init as /init, the fw_cfg
 * reader it takes a restored snapshot's words with (qemu/guest/fwcfg.c)
 * and the caller's files, every time stamp 0, owner 0:0, sorted, newc cpio (gzip'd
 * without name or time for the classic boot; the lean boot spares the
 * guest's gunzip): the same inputs give the same sha256.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/home.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

#define BUSYBOX "/bin/busybox"

/* Copy @src to @dir/@dest with a mode that does not depend on the umask. */
static int stage(const char *dir, const char *src, const char *dest, int exec,
		 struct cap_err *err)
{
	char *dst = xasprintf("%s/%s", dir, dest);
	int ret = 0;

	if (copy_file(src, dst))
		ret = cap_fail(err, EXIT_ENV_MISSING, "cannot read %s", src);
	else if (chmod(dst, exec ? 0755 : 0644))
		ret = cap_fail(err, EXIT_CAPTURE_FAILED, "chmod %s failed", dst);
	free(dst);
	return ret;
}

static int make_dir(const char *dir, const char *sub, struct cap_err *err)
{
	char *p = xasprintf("%s/%s", dir, sub);
	int ret = mkdir_ok(p, err);

	if (!ret && chmod(p, 0755))
		ret = cap_fail(err, EXIT_CAPTURE_FAILED, "chmod %s failed", p);
	free(p);
	return ret;
}

/* The initramfs tree in @dir: its directories, busybox, init, fwcfg, @files. */
static int populate(const char *dir, const char *init, const char *fwcfg,
		    const struct guest_file *files, size_t n, struct cap_err *err)
{
	struct stat st;

	if (make_dir(dir, "", err) || make_dir(dir, "bin", err) ||
	    make_dir(dir, "dev", err) ||
	    stage(dir, BUSYBOX, "bin/busybox", 1, err) ||
	    stage(dir, init, "init", 1, err) ||
	    stage(dir, fwcfg, "fwcfg", 1, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (stage(dir, files[i].src, files[i].dest,
			  !stat(files[i].src, &st) && (st.st_mode & 0100), err))
			return -1;
	return 0;
}

static int build(const char *init, const char *fwcfg,
		 const struct guest_file *files, size_t n, const char *out,
		 struct cap_err *err)
{
	char *dir = cache_tmp_name(out);
	char *tmp = xasprintf("%s.cpio", dir);
	const char *argv[] = { "bash", "-o", "pipefail", "-c",
		"cd \"$1\" && find . -exec touch -h -d @0 {} + && "
		"find . | LC_ALL=C sort | "
		"cpio -o -H newc -R 0:0 --reproducible --quiet | $2",
		"sh", dir, guest_boot_lean() ? "cat" : "gzip -9n", NULL };
	int dir_cleanup, tmp_cleanup, ret;

	progress("building initramfs");
	remove_tree(dir);
	dir_cleanup = remove_on_failure(dir);
	tmp_cleanup = remove_on_failure(tmp);
	ret = populate(dir, init, fwcfg, files, n, err);
	if (!ret)
		ret = proc_ok(EXIT_ENV_MISSING, argv, tmp, err);
	if (!ret)
		ret = cache_commit(tmp, out, err);
	/* Nothing half-written, whether the caller dies or goes on. */
	if (ret)
		remove(tmp);
	cancel_on_failure(tmp_cleanup);
	remove_tree(dir);
	cancel_on_failure(dir_cleanup);
	free(tmp);
	free(dir);
	return ret;
}

char *guest_initramfs(const struct guest_file *files, size_t n, char sha[65],
		      struct cap_err *err)
{
	char *init = xasprintf("%s/qemu/init", capture_home());
	char *src = xasprintf("%s/qemu/guest/fwcfg.c", capture_home());
	char *fwcfg = guest_helper_build(src, err);
	const char **parts = xcalloc(n + 4, sizeof(*parts));
	char key[17], *out = NULL;

	if (!fwcfg)
		goto done;
	if (!file_exists(BUSYBOX)) {
		cap_fail(err, EXIT_ENV_MISSING, "no %s: run 'make deps' (busybox-static)",
			 BUSYBOX);
		goto done;
	}
	parts[0] = BUSYBOX;
	parts[1] = init;
	parts[2] = fwcfg;
	for (size_t i = 0; i < n; i++)
		parts[i + 3] = files[i].src;
	if (sha256_key(parts, key, err))
		goto done;
	out = cache_path(err, "initramfs/%s.cpio%s", key,
			       guest_boot_lean() ? "" : ".gz");
	if (out && ((!file_exists(out) && build(init, fwcfg, files, n, out, err)) ||
		    (sha256_file(out, sha) &&
		     cap_fail(err, EXIT_CAPTURE_FAILED, "cannot read %s", out)))) {
		free(out);
		out = NULL;
	}
done:
	free(parts);
	free(fwcfg);
	free(src);
	free(init);
	return out;
}
