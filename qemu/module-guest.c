// SPDX-License-Identifier: MIT
/*
 * A guest that runs one scenario module (see guest.h): Debian's kernel,
 * the module built from its directory and an initramfs with the module,
 * the scripts every module guest runs (qemu/guest/prepare.sh, guest.sh)
 * and the trace channel's tracedump.  What the spin and the rwlock
 * drivers share.
 */
#include <stdlib.h>
#include <string.h>
#include "../capture/home.h"
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "guest.h"

/*
 * The ring buffer per CPU, in KiB: a scenario of the longest (775 steps,
 * two events each, ~40 bytes a record) fills ~60.
 */
#define DEFAULT_TRACE_KB 256

int module_guest_prepare(struct module_guest *g, const char *name,
			 struct cap_err *err)
{
	char *dir, *src, *header, *kbuild, *script, *prep, *ko, *helper, *dump;
	char *start, *actors, *events;
	int ret = -1;
	struct guest_file initrd[4];

	if (g->initrd)
		return 0;
	g->name = name;
	dir = xasprintf("%s/scenarios/%s/module", capture_home(), name);
	src = xasprintf("%s/%s.c", dir, name);
	header = xasprintf("%s/%s-trace.h", dir, name);
	helper = xasprintf("%s/qemu/guest/tracedump.c", capture_home());
	kbuild = xasprintf("%s/Kbuild", dir);
	start = xasprintf("%s/qemu/guest/module-start.h", capture_home());
	actors = xasprintf("%s/qemu/guest/module-actors.h", capture_home());
	events = xasprintf("%s/qemu/guest/module-trace.h", capture_home());
	script = xasprintf("%s/qemu/guest/guest.sh", capture_home());
	prep = xasprintf("%s/qemu/guest/prepare.sh", capture_home());
	ko = NULL;
	if (!guest_kernel_get(&g->kernel, err))
		ko = guest_module_build(&g->kernel, name, (const char *const[]){
						src, header, start, actors, events,
						kbuild, NULL },
					g->module_sha, err);
	dump = ko ? guest_helper_build(helper, err) : NULL;
	if (!dump)
		goto done;
	g->ko_name = xasprintf("%s.ko", name);
	initrd[0] = (struct guest_file){ ko, g->ko_name };
	initrd[1] = (struct guest_file){ script, "guest.sh" };
	initrd[2] = (struct guest_file){ dump, "tracedump" };
	initrd[3] = (struct guest_file){ prep, "prepare.sh" };
	g->initrd = guest_initramfs(initrd, 4, g->initrd_sha, err);
	ret = g->initrd ? 0 : -1;
done:
	free(dump);
	free(helper);
	free(header);
	free(ko);
	free(script);
	free(prep);
	free(kbuild);
	free(start);
	free(actors);
	free(events);
	free(src);
	free(dir);
	return ret;
}

int module_guest_describe(const struct module_guest *g, cJSON *env,
			  struct cap_err *err)
{
	cJSON *module;

	if (guest_kernel_describe(&g->kernel, env, err))
		return -1;
	module = json_obj();
	json_add(module, "name", json_str(g->ko_name));
	json_add(module, "sha256", json_str(g->module_sha));
	json_add(env, "module", module);
	json_add(env, "initramfs_sha256", json_str(g->initrd_sha));
	return 0;
}

char *module_guest_words(const struct module_guest *g, int cpus, int trace_kb)
{
	return xasprintf("capture_module=%s capture_cpus=%d capture_trace_kb=%d",
			 g->name, cpus, trace_kb);
}

int guest_trace_kb(struct cap_err *err)
{
	const char *v = getenv("CAPTURE_TRACE_KB");
	char *end;
	long kb;

	if (!v || !*v)
		return DEFAULT_TRACE_KB;
	kb = strtol(v, &end, 10);
	if (*end || kb < 1 || kb > 65536)
		return cap_fail(err, EXIT_USAGE, "CAPTURE_TRACE_KB must be 1 to "
				"65536 (KiB per CPU), not '%s'", v);
	return (int)kb;
}

char *guest_channel_path(const char *raw, const char *suffix)
{
	size_t n = strlen(raw);

	if (n > 4 && !strcmp(raw + n - 4, ".log"))
		n -= 4;
	return xasprintf("%.*s%s", (int)n, raw, suffix);
}

void guest_boots_free(struct guest_boot *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)b[i].name);
		free((char *)b[i].append);
		free((char *)b[i].prepare);
		free((char *)b[i].events_path);
		free((char *)b[i].trace_path);
	}
	free(b);
}
