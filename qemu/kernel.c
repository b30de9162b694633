// SPDX-License-Identifier: MIT
/*
 * Debian's kernel for the guest: the linux-image of the installed headers'
 * ABI and version, downloaded once into the cache and unpacked to vmlinux.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

#define DEPS_HINT "run 'apt-get update && make deps'"

/*
 * The newest /usr/src/linux-headers-<abi>: its ABI, e.g. "6.1.0-57-amd64";
 * NULL and @err if there is none.
 */
static char *headers_abi(struct cap_err *err)
{
	const char *prefix = "/usr/src/linux-headers-";
	const char *best = NULL;
	char *abi = NULL;
	glob_t g;
	int found = glob("/usr/src/linux-headers-*-amd64", 0, NULL, &g) == 0;

	for (size_t i = 0; found && i < g.gl_pathc; i++)
		if (!best || strverscmp(g.gl_pathv[i], best) > 0)
			best = g.gl_pathv[i];
	if (best)
		abi = xstrdup(best + strlen(prefix));
	else
		cap_fail(err, EXIT_ENV_MISSING, "no /usr/src/linux-headers-*-amd64: "
			 DEPS_HINT);
	if (found)
		globfree(&g);
	return abi;
}

static char *package_version(const char *package, struct cap_err *err)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}\\n", package, NULL };

	return command_output(EXIT_ENV_MISSING, argv, err);
}

/* apt-get download writes NAME_VERSION_amd64.deb, ':' spelled "%3a". */
static char *deb_file_name(const char *package, const char *version)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s_", package);
	for (const char *p = version; *p; p++)
		if (*p == ':')
			strbuf_addstr(&sb, "%3a");
		else
			strbuf_add(&sb, p, 1);
	strbuf_addstr(&sb, "_amd64.deb");
	return sb.buf;
}

/* apt-get download into a directory of its own, then renamed to @deb. */
static int download(const struct guest_kernel *k, const char *deb,
		    struct cap_err *err)
{
	char *dir = cache_tmp_name(deb);
	char *spec = xasprintf("%s=%s", k->package, k->version);
	char *log = cache_path(err, "last-run/apt-get-download.log");
	const char *argv[] = { "env", "-C", dir, "apt-get", "download", "-q",
			       spec, NULL };
	char *got = xasprintf("%s/%s", dir, strrchr(deb, '/') + 1);
	struct proc_result r;
	int cleanup, ret = -1;

	if (!log)
		goto done;
	progress("downloading %s %s", k->package, k->version);
	cleanup = remove_on_failure(dir);
	if (!mkdir_ok(dir, err)) {
		r = proc_run(argv, log, log, 600);
		if (!r.exited || r.status || !file_exists(got))
			cap_fail(err, EXIT_ENV_MISSING, "cannot download %s (log: %s): "
				 DEPS_HINT, spec, log);
		else
			ret = cache_commit(got, deb, err);
	}
	/* Nothing half-written, whether the caller dies or goes on. */
	remove_tree(dir);
	cancel_on_failure(cleanup);
done:
	free(got);
	free(log);
	free(spec);
	free(dir);
	return ret;
}

/* The .deb's sha256, computed once at download and kept beside it. */
static int deb_sha256(const char *deb, char hex[65], struct cap_err *err)
{
	char *side = xasprintf("%s.sha256", deb);
	char *text = read_file(side, NULL);
	int ret = 0;

	if (text && strlen(text) >= 64) {
		memcpy(hex, text, 64);
		hex[64] = '\0';
	} else {
		char *tmp = cache_tmp_name(side);
		int cleanup = remove_on_failure(tmp);

		if (sha256_file(deb, hex)) {
			ret = cap_fail(err, EXIT_ENV_MISSING, "cannot read %s", deb);
		} else {
			write_file(tmp, hex, 64);
			ret = cache_commit(tmp, side, err);
		}
		if (ret)
			remove(tmp);
		cancel_on_failure(cleanup);
		free(tmp);
	}
	free(text);
	free(side);
	return ret;
}

/* The XZ stream inside the bzImage @bz into @xz; -1 and @err if none. */
static int xz_payload(const char *bz, const char *xz, const char *member,
		      const char *deb, struct cap_err *err)
{
	static const char magic[] = "\xfd" "7zXZ";
	size_t len;
	char *img = read_file(bz, &len);
	char *at = img ? memmem(img, len, magic, sizeof(magic)) : NULL;

	if (at)
		write_file(xz, at, len - (at - img));
	free(img);
	if (!at)
		return cap_fail(err, EXIT_ENV_MISSING, "%s in %s has no XZ payload",
				member, deb);
	return 0;
}

static int is_elf(const char *path)
{
	size_t len;
	char *img = read_file(path, &len);
	int elf = img && len >= 4 && !memcmp(img, "\x7f" "ELF", 4);

	free(img);
	return elf;
}

/*
 * The bzImage carries the kernel as one XZ stream (magic fd 37 7a 58 5a
 * 00); its content is the vmlinux ELF, which QEMU boots by PVH without
 * the slow in-guest decompression.
 */
static int unpack_vmlinux(const struct guest_kernel *k, const char *deb,
			  struct cap_err *err)
{
	char *bz = cache_tmp_name(k->vmlinux);
	char *xz = xasprintf("%s.xz", bz);
	char *out = xasprintf("%s.elf", bz);
	char *member = xasprintf("./boot/vmlinuz-%s", k->abi);
	const char *untar[] = { "bash", "-o", "pipefail", "-c",
		"dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"$2\"",
		"sh", deb, member, NULL };
	const char *unxz[] = { "xz", "-dc", "--single-stream", xz, NULL };
	int cleanup[3] = { remove_on_failure(bz), remove_on_failure(xz),
			   remove_on_failure(out) };
	int ret;

	progress("unpacking %s", member + 2);
	ret = proc_ok(EXIT_ENV_MISSING, untar, bz, err);
	if (!ret)
		ret = xz_payload(bz, xz, member, deb, err);
	if (!ret)
		ret = proc_ok(EXIT_ENV_MISSING, unxz, out, err);
	if (!ret && !is_elf(out))
		ret = cap_fail(err, EXIT_ENV_MISSING,
			       "the XZ payload of %s is not an ELF kernel", member);
	if (!ret)
		ret = cache_commit(out, k->vmlinux, err);
	/* Nothing half-written, whether the caller dies or goes on. */
	remove(bz);
	remove(xz);
	if (ret)
		remove(out);
	for (int i = 0; i < 3; i++)
		cancel_on_failure(cleanup[i]);
	free(member);
	free(out);
	free(xz);
	free(bz);
	return ret;
}

static void kernel_clear(struct guest_kernel *k)
{
	free(k->abi);
	free(k->headers_dir);
	free(k->version);
	free(k->package);
	free(k->vmlinux);
	memset(k, 0, sizeof(*k));
}

/* The cached .deb of @k's package (fetched if missing) and its sha256. */
static char *kernel_deb(struct guest_kernel *k, struct cap_err *err)
{
	char *name = deb_file_name(k->package, k->version);
	char *deb = cache_path(err, "kernel/%s", name);

	free(name);
	if (deb && ((!file_exists(deb) && download(k, deb, err)) ||
		    deb_sha256(deb, k->deb_sha256, err))) {
		free(deb);
		deb = NULL;
	}
	return deb;
}

int guest_kernel_get(struct guest_kernel *k, struct cap_err *err)
{
	char *deb = NULL;
	int ret = -1;

	memset(k, 0, sizeof(*k));
	k->abi = headers_abi(err);
	if (!k->abi)
		return -1;
	k->headers_dir = xasprintf("/usr/src/linux-headers-%s", k->abi);
	k->version = package_version(strrchr(k->headers_dir, '/') + 1, err);
	if (!k->version)
		goto done;
	k->package = xasprintf("linux-image-%s", k->abi);
	deb = kernel_deb(k, err);
	if (deb)
		k->vmlinux = cache_path(err, "kernel/%s_%s.vmlinux", k->abi,
					      k->deb_sha256);
	if (k->vmlinux && (file_exists(k->vmlinux) || !unpack_vmlinux(k, deb, err)))
		ret = 0;
done:
	free(deb);
	if (ret)
		kernel_clear(k);
	return ret;
}

static cJSON *package(const char *name, const char *version)
{
	cJSON *p = json_obj();

	json_add(p, "package", json_str(name));
	json_add(p, "version", json_str(version));
	return p;
}

/*
 * The versions of @names[0..n) in one dpkg-query: each one is a process a
 * warm capture waits for (~25 ms), where the boot itself is ~0.35 s.
 * -1 and @err if dpkg-query fails or does not name one.
 */
static int add_packages(cJSON *env, const char *const keys[],
			const char *const names[], size_t n, struct cap_err *err)
{
	const char *argv[8] = { "dpkg-query", "-W", "-f=${Package}=${Version} " };
	char *out;
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		argv[3 + i] = names[i];
	out = command_output(EXIT_ENV_MISSING, argv, err);
	if (!out)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *at = out, *version;

		while (at && (strncmp(at, names[i], len) || at[len] != '='))
			at = (at = strchr(at, ' ')) ? at + 1 : NULL;
		if (!at) {
			ret = cap_fail(err, EXIT_ENV_MISSING,
				       "dpkg-query gave no version of %s", names[i]);
			break;
		}
		version = xstrdup(at + len + 1);
		version[strcspn(version, " ")] = '\0';
		cJSON_DeleteItemFromObjectCaseSensitive(env, keys[i]);
		json_add(env, keys[i], package(names[i], version));
		free(version);
	}
	free(out);
	return ret;
}

int guest_kernel_describe(const struct guest_kernel *k, cJSON *env,
			  struct cap_err *err)
{
	static const char *const keys[] = { "qemu", "busybox" };
	static const char *const names[] = { "qemu-system-x86", "busybox-static" };
	char *headers = xasprintf("linux-headers-%s", k->abi);
	cJSON *kernel = package(k->package, k->version);

	json_add(kernel, "deb_sha256", json_str(k->deb_sha256));
	cJSON_DeleteItemFromObjectCaseSensitive(env, "kernel");
	json_add(env, "kernel", kernel);
	/* k->version is the headers package's version (guest_kernel_get()). */
	cJSON_DeleteItemFromObjectCaseSensitive(env, "headers");
	json_add(env, "headers", package(headers, k->version));
	free(headers);
	return add_packages(env, keys, names, 2, err);
}
