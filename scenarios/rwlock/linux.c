// SPDX-License-Identifier: MIT
/*
 * The rwlock driver (see linux.h).  The steps travel on the kernel
 * command line, so the module and the initramfs are the same for every
 * scenario; the guest ships its ftrace ring buffer (trace channel) and
 * writes its JSON channel; the first is decoded and checked against the
 * second.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../folders/rwlock/rwlock-ftrace.h"
#include "../../folders/rwlock/rwlock-ops.h"
#include "../../qemu/guest.h"
#include "linux.h"

/* Each run's trace channel into its stream, what the kernel showed into @env. */
static void decode_all(const struct rwlock_scenario *sc, const struct guest_boot *b,
		       size_t n, char *const raw[], int kb, cJSON *env)
{
	cJSON *trace = json_obj(), *runs = json_obj();

	json_add(trace, "buffer_kb_per_cpu", json_int(kb));
	for (size_t i = 0; i < n; i++) {
		cJSON *info = json_obj();

		progress("decoding the trace channel of %s", sc[i].run);
		rwlock_trace_decode(b[i].trace_path, b[i].events_path, raw[i], info);
		json_add(runs, sc[i].run, info);
	}
	json_add(trace, "runs", runs);
	json_add(env, "trace", trace);
}

void rwlock_linux_run(const struct rwlock_scenario *sc, size_t n, int cpus,
		      int jobs, char *const raw[], cJSON *env)
{
	static struct module_guest g;
	struct cap_err err;
	struct guest_boot *boots = xcalloc(n, sizeof(*boots));
	char **errors = xcalloc(n, sizeof(*errors));
	int kb = guest_trace_kb(&err);

	if (kb < 0 || module_guest_prepare(&g, "rwlock", &err))
		die_err(&err);
	for (size_t i = 0; i < n; i++)
		boots[i] = (struct guest_boot){
			.name = xasprintf("rwlock-%s", sc[i].name),
			.append = actor_steps_cmdline(sc[i].name, sc[i].path, sc[i].steps,
						      sc[i].nsteps, rwlock_op_letters),
			.prepare = module_guest_words(&g, cpus, kb),
			.cpus = cpus,
			.events_path = guest_channel_path(raw[i], ".json.log"),
			.trace_path = guest_channel_path(raw[i], ".ftrace"),
			.vmlinux = g.kernel.vmlinux, .initrd = g.initrd,
		};
	progress("capturing %zu rwlock scenario%s, up to %d at once", n,
		 n == 1 ? "" : "s", jobs);
	if (guest_capture_all(boots, n, jobs, errors, env, &err))
		die_err(&err);
	for (size_t i = 0; i < n; i++)
		if (errors[i])
			actor_steps_refused(sc[i].path, sc[i].steps, sc[i].nsteps,
					    rwlock_op_names, "rwlock", errors[i]);
	json_add(env, "event_channel", json_str("trace"));
	decode_all(sc, boots, n, raw, kb, env);
	if (module_guest_describe(&g, env, &err))
		die_err(&err);
	guest_boots_free(boots, n);
	free(errors);
}
