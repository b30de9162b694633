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
#include "../capture/json.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

#define DEPS_HINT "run 'apt-get update && make deps'"

/* The newest /usr/src/linux-headers-<abi>: its ABI, e.g. "6.1.0-57-amd64". */
static char *headers_abi(void)
{
	const char *prefix = "/usr/src/linux-headers-";
	const char *best = NULL;
	char *abi;
	glob_t g;

	if (glob("/usr/src/linux-headers-*-amd64", 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (!best || strverscmp(g.gl_pathv[i], best) > 0)
				best = g.gl_pathv[i];
	if (!best)
		die(EXIT_ENV_MISSING, "no /usr/src/linux-headers-*-amd64: " DEPS_HINT);
	abi = xstrdup(best + strlen(prefix));
	globfree(&g);
	return abi;
}

static char *package_version(const char *package)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}\\n", package, NULL };

	return command_output(EXIT_ENV_MISSING, argv);
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

static void download(struct guest_kernel *k, const char *deb)
{
	char *dir = cache_tmp_name(deb);
	char *spec = xasprintf("%s=%s", k->package, k->version);
	char *log = guest_cache_path("last-run/apt-get-download.log");
	const char *argv[] = { "env", "-C", dir, "apt-get", "download", "-q",
			       spec, NULL };
	struct proc_result r;
	char *got, *name = strrchr(deb, '/') + 1;

	int cleanup;

	progress("downloading %s %s", k->package, k->version);
	cleanup = remove_on_failure(dir);
	mkdir_p(dir);
	r = proc_run(argv, log, log, 600);
	got = xasprintf("%s/%s", dir, name);
	if (!r.exited || r.status || !file_exists(got))
		die(EXIT_ENV_MISSING, "cannot download %s (log: %s): " DEPS_HINT,
		    spec, log);
	cache_commit(got, deb);
	remove_tree(dir);
	cancel_on_failure(cleanup);
	free(got);
	free(log);
	free(spec);
	free(dir);
}

/* The .deb's sha256, computed once at download and kept beside it. */
static void deb_sha256(const char *deb, char hex[65])
{
	char *side = xasprintf("%s.sha256", deb);
	char *text = read_file(side, NULL);

	if (text && strlen(text) >= 64) {
		memcpy(hex, text, 64);
		hex[64] = '\0';
	} else {
		char *tmp = cache_tmp_name(side);
		int cleanup = remove_on_failure(tmp);

		if (sha256_file(deb, hex))
			die(EXIT_ENV_MISSING, "cannot read %s", deb);
		write_file(tmp, hex, 64);
		cache_commit(tmp, side);
		cancel_on_failure(cleanup);
		free(tmp);
	}
	free(text);
	free(side);
}

/*
 * The bzImage carries the kernel as one XZ stream (magic fd 37 7a 58 5a
 * 00); its content is the vmlinux ELF, which QEMU boots by PVH without
 * the slow in-guest decompression.
 */
static void unpack_vmlinux(const struct guest_kernel *k, const char *deb)
{
	char *bz = cache_tmp_name(k->vmlinux);
	char *xz = xasprintf("%s.xz", bz);
	char *out = xasprintf("%s.elf", bz);
	char *member = xasprintf("./boot/vmlinuz-%s", k->abi);
	const char *untar[] = { "bash", "-o", "pipefail", "-c",
		"dpkg-deb --fsys-tarfile \"$1\" | tar -xO \"$2\"",
		"sh", deb, member, NULL };
	const char *unxz[] = { "xz", "-dc", "--single-stream", xz, NULL };
	static const char magic[] = "\xfd" "7zXZ";
	int cleanup[3] = { remove_on_failure(bz), remove_on_failure(xz),
			   remove_on_failure(out) };
	size_t len;
	char *img, *at;

	progress("unpacking %s", member + 2);
	proc_must(EXIT_ENV_MISSING, untar, bz);
	img = read_file(bz, &len);
	at = img ? memmem(img, len, magic, sizeof(magic)) : NULL;
	if (!at)
		die(EXIT_ENV_MISSING, "%s in %s has no XZ payload", member, deb);
	write_file(xz, at, len - (at - img));
	proc_must(EXIT_ENV_MISSING, unxz, out);
	free(img);
	img = read_file(out, &len);
	if (!img || len < 4 || memcmp(img, "\x7f" "ELF", 4))
		die(EXIT_ENV_MISSING, "the XZ payload of %s is not an ELF kernel", member);
	cache_commit(out, k->vmlinux);
	remove(bz);
	remove(xz);
	for (int i = 0; i < 3; i++)
		cancel_on_failure(cleanup[i]);
	free(img);
	free(member);
	free(out);
	free(xz);
	free(bz);
}

void guest_kernel_get(struct guest_kernel *k)
{
	char *deb;

	memset(k, 0, sizeof(*k));
	k->abi = headers_abi();
	k->headers_dir = xasprintf("/usr/src/linux-headers-%s", k->abi);
	k->version = package_version(strrchr(k->headers_dir, '/') + 1);
	k->package = xasprintf("linux-image-%s", k->abi);
	{
		char *name = deb_file_name(k->package, k->version);

		deb = guest_cache_path("kernel/%s", name);
		free(name);
	}
	if (!file_exists(deb))
		download(k, deb);
	deb_sha256(deb, k->deb_sha256);
	k->vmlinux = guest_cache_path("kernel/%s_%s.vmlinux", k->abi, k->deb_sha256);
	if (!file_exists(k->vmlinux))
		unpack_vmlinux(k, deb);
	free(deb);
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
 */
static void add_packages(cJSON *env, const char *const keys[],
			 const char *const names[], size_t n)
{
	const char *argv[8] = { "dpkg-query", "-W", "-f=${Package}=${Version} " };
	char *out;

	for (size_t i = 0; i < n; i++)
		argv[3 + i] = names[i];
	out = command_output(EXIT_ENV_MISSING, argv);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *at = out, *version;

		while (at && (strncmp(at, names[i], len) || at[len] != '='))
			at = (at = strchr(at, ' ')) ? at + 1 : NULL;
		if (!at)
			die(EXIT_ENV_MISSING, "dpkg-query gave no version of %s", names[i]);
		version = xstrdup(at + len + 1);
		version[strcspn(version, " ")] = '\0';
		cJSON_DeleteItemFromObjectCaseSensitive(env, keys[i]);
		json_add(env, keys[i], package(names[i], version));
		free(version);
	}
	free(out);
}

void guest_kernel_describe(const struct guest_kernel *k, cJSON *env)
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
	add_packages(env, keys, names, 2);
	free(headers);
}
