// SPDX-License-Identifier: MIT
/*
 * The Linux spin driver: Debian's kernel under QEMU, the spin module
 * (module/spin.c) running the scenario on one real spinlock_t, at one CPU
 * (one kthread for both actors) or two (one pinned kthread per actor).
 * The steps travel on the kernel command line, so the module and the
 * initramfs are the same for every scenario.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/home.h"
#include "../../capture/json.h"
#include "../../folders/spin/spin-ftrace.h"
#include "../../qemu/guest.h"
#include "driver.h"

/* The module's op letters (module/spin.c), by enum spin_op. */
static const char op_letters[] = { [SPIN_LOCK] = 'l', [SPIN_TRY] = 't',
				   [SPIN_RELEASE] = 'r' };

/*
 * CAPTURE_SPIN_CHANNEL=json: the JSON channel alone (no tracing, no
 * StopSpinning), what bench/spin-capture measures the trace path against.
 */
static int json_only(void)
{
	static const char *const channels[] = { "trace", "json", NULL };

	return env_choice("CAPTURE_SPIN_CHANNEL", channels) == 1;
}

/* The ring buffer's size per CPU in KiB; 0: no tracing. */
static int trace_kb(void)
{
	struct cap_err err;
	int kb = json_only() ? 0 : guest_trace_kb(&err);

	if (kb < 0)
		die_err(&err);
	return kb;
}

/* The guests' last-run/ logs are named after their scenarios. */
static char *boot_name(const struct spin_scenario *sc)
{
	return xasprintf("spin-%s", sc->name);
}

/*
 * Each run's trace channel into its raw stream (StopSpinning included),
 * checked against its JSON channel; what the kernel showed of the lock
 * into environment "trace", by run.
 */
static void decode_all(const struct guest_boot *boots, size_t n,
		       char *const raw_paths[], cJSON *environment)
{
	cJSON *trace = json_obj(), *runs = json_obj();

	json_add(trace, "buffer_kb_per_cpu", json_int(trace_kb()));
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(raw_paths[i], '/');
		char *run = guest_channel_path(base ? base + 1 : raw_paths[i], "");
		cJSON *info = json_obj();

		progress("decoding the trace channel of %s", run);
		spin_trace_decode(boots[i].trace_path, boots[i].events_path,
				  raw_paths[i], info);
		json_add(runs, run, info);
		free(run);
	}
	json_add(trace, "runs", runs);
	json_add(environment, "trace", trace);
}

static void linux_run(struct live_capture *lc)
{
	const struct spin_live *s = lc->data;
	const struct spin_scenario *sc = s->sc;
	const struct spin_run_options *opt = &s->opt;
	char *const *raw_paths = lc->raw;
	cJSON *environment = lc->environment;
	size_t n = lc->n;
	static struct module_guest g;
	struct cap_err err;
	struct guest_boot *boots = xcalloc(n, sizeof(*boots));
	char **errors = xcalloc(n, sizeof(*errors));
	int traced = !opt->boot_only && trace_kb();

	if (module_guest_prepare(&g, "spin", &err))
		die_err(&err);
	for (size_t i = 0; i < n; i++)
		boots[i] = (struct guest_boot){
			.name = boot_name(&sc[i]),
			.append = actor_steps_cmdline(sc[i].name, sc[i].path, sc[i].steps,
						      sc[i].nsteps, op_letters),
			.prepare = module_guest_words(&g, opt->cpus, trace_kb()),
			.cpus = opt->cpus,
			.events_path = traced ? guest_channel_path(raw_paths[i], ".json.log")
					      : xstrdup(raw_paths[i]),
			.trace_path = traced ? guest_channel_path(raw_paths[i], ".ftrace")
					     : NULL,
			.boot_only = opt->boot_only, .vmlinux = g.kernel.vmlinux,
			.initrd = g.initrd,
		};
	if (n == 1)
		progress("capturing spin scenario %s", sc[0].name);
	else
		progress("capturing %zu spin scenarios, up to %d at once", n, opt->jobs);
	if (guest_capture_all(boots, n, opt->jobs, errors, environment, &err))
		die_err(&err);
	for (size_t i = 0; i < n; i++)
		if (errors[i])
			actor_steps_refused(sc[i].path, sc[i].steps, sc[i].nsteps,
					    spin_op_names, "spin", errors[i]);
	json_add(environment, "event_channel", json_str(traced ? "trace" : "json"));
	if (traced)
		decode_all(boots, n, raw_paths, environment);
	/* The same guest for every scenario of the run: described once. */
	if (!json_get(environment, "module") &&
	    module_guest_describe(&g, environment, &err))
		die_err(&err);
	guest_boots_free(boots, n);
	free(errors);
}

const struct live_driver spin_linux_driver = {
	.name = "linux",
	.run = linux_run,
};
