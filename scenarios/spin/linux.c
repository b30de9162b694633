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
#include "../../capture/home.h"
#include "../../capture/json.h"
#include "../../folders/spin-ftrace.h"
#include "../../qemu/guest.h"
#include "driver.h"

/* x86's COMMAND_LINE_SIZE, less room for the runner's own words. */
#define MAX_SCENARIO_WORDS 1600
/*
 * The ring buffer per CPU, in KiB: a scenario of the longest (775 steps,
 * two events each, ~40 bytes a record) fills ~60.  CAPTURE_TRACE_KB
 * overrides it (the tests shrink it until events are lost).
 */
#define DEFAULT_TRACE_KB 256

struct linux_guest {
	struct guest_kernel kernel;
	char *initrd;
	char module_sha[65];
	char initrd_sha[65];
};

/* Kernel, module and initramfs: prepared once for all scenarios. */
static const struct linux_guest *prepare(void)
{
	static struct linux_guest g;
	char *dir, *src, *header, *kbuild, *script, *prep, *ko, *helper, *dump;
	struct guest_file initrd[4];

	if (g.initrd)
		return &g;
	dir = xasprintf("%s/scenarios/spin/module", capture_home());
	src = xasprintf("%s/spin.c", dir);
	header = xasprintf("%s/spin-trace.h", dir);
	helper = xasprintf("%s/qemu/guest/tracedump.c", capture_home());
	kbuild = xasprintf("%s/Kbuild", dir);
	script = xasprintf("%s/guest.sh", dir);
	prep = xasprintf("%s/prepare.sh", dir);
	guest_kernel_get(&g.kernel);
	ko = guest_module_build(&g.kernel, "spin",
				(const char *const[]){ src, header, kbuild, NULL },
				g.module_sha);
	dump = guest_helper_build(helper);
	initrd[0] = (struct guest_file){ ko, "spin.ko" };
	initrd[1] = (struct guest_file){ script, "guest.sh" };
	initrd[2] = (struct guest_file){ dump, "tracedump" };
	initrd[3] = (struct guest_file){ prep, "prepare.sh" };
	g.initrd = guest_initramfs(initrd, 4, g.initrd_sha);
	free(dump);
	free(helper);
	free(header);
	free(ko);
	free(script);
	free(prep);
	free(kbuild);
	free(src);
	free(dir);
	return &g;
}

static void describe(const struct linux_guest *g, cJSON *env)
{
	cJSON *module = json_obj();

	guest_kernel_describe(&g->kernel, env);
	json_add(module, "name", json_str("spin.ko"));
	json_add(module, "sha256", json_str(g->module_sha));
	json_add(env, "module", module);
	json_add(env, "initramfs_sha256", json_str(g->initrd_sha));
}

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
	const char *v = getenv("CAPTURE_TRACE_KB");
	char *end;
	long kb;

	if (json_only())
		return 0;
	if (!v || !*v)
		return DEFAULT_TRACE_KB;
	kb = strtol(v, &end, 10);
	if (*end || kb < 1 || kb > 65536)
		die(EXIT_USAGE, "CAPTURE_TRACE_KB must be 1 to 65536 (KiB per CPU), not '%s'",
		    v);
	return (int)kb;
}

/*
 * "capture_cpus=N capture_trace_kb=K" for /prepare.sh, which loads the
 * module: the same for every scenario, so a snapshot can hold it.
 */
static char *guest_words(int cpus)
{
	return xasprintf("capture_cpus=%d capture_trace_kb=%d", cpus, trace_kb());
}

/* "capture_name=NAME capture_steps=0l1t0r..." for /guest.sh and the module. */
static char *scenario_words(const struct spin_scenario *sc)
{
	static const char op_letter[] = { [SPIN_LOCK] = 'l', [SPIN_TRY] = 't',
					  [SPIN_RELEASE] = 'r' };
	char *steps = xcalloc(2 * sc->nsteps + 1, 1);
	char *words;

	for (size_t i = 0; i < sc->nsteps; i++) {
		steps[2 * i] = '0' + sc->steps[i].actor;
		steps[2 * i + 1] = op_letter[sc->steps[i].op];
	}
	words = xasprintf("capture_name=%s capture_steps=%s", sc->name, steps);
	free(steps);
	if (strlen(words) > MAX_SCENARIO_WORDS)
		die_at(EXIT_BAD_INPUT, sc->path, 0,
		       "%zu steps do not fit the kernel command line (at most %d)",
		       sc->nsteps,
		       (int)(MAX_SCENARIO_WORDS - (strlen(words) - 2 * sc->nsteps)) / 2);
	return words;
}

/* The module refused step N ("step N: why"): name the scenario's line. */
static _Noreturn void refused(const struct spin_scenario *sc, const char *error)
{
	unsigned long n;
	int used = 0;

	if (sscanf(error, "step %lu: %n", &n, &used) == 1 && used && n < sc->nsteps)
		die_at(EXIT_BAD_INPUT, sc->path, sc->steps[n].line,
		       "'%d %s': the kernel cannot run this step: %s",
		       sc->steps[n].actor, spin_op_name(sc->steps[n].op),
		       error + used);
	die(EXIT_CAPTURE_FAILED, "the spin module failed: %s", error);
}

/* The guests' last-run/ logs are named after their scenarios. */
static char *boot_name(const struct spin_scenario *sc)
{
	return xasprintf("spin-%s", sc->name);
}

/* RAW less its ".log", then @suffix: the channels' files beside it. */
static char *beside(const char *raw, const char *suffix)
{
	size_t n = strlen(raw);

	if (n > 4 && !strcmp(raw + n - 4, ".log"))
		n -= 4;
	return xasprintf("%.*s%s", (int)n, raw, suffix);
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
		char *run = beside(base ? base + 1 : raw_paths[i], "");
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
	const struct linux_guest *g = prepare();
	struct guest_boot *boots = xcalloc(n, sizeof(*boots));
	char **errors = xcalloc(n, sizeof(*errors));
	int traced = !opt->boot_only && trace_kb();

	for (size_t i = 0; i < n; i++)
		boots[i] = (struct guest_boot){
			.name = boot_name(&sc[i]), .append = scenario_words(&sc[i]),
			.prepare = guest_words(opt->cpus),
			.cpus = opt->cpus,
			.events_path = traced ? beside(raw_paths[i], ".json.log") : xstrdup(raw_paths[i]),
			.trace_path = traced ? beside(raw_paths[i], ".ftrace") : NULL,
			.boot_only = opt->boot_only, .vmlinux = g->kernel.vmlinux,
			.initrd = g->initrd,
		};
	if (n == 1)
		progress("capturing spin scenario %s", sc[0].name);
	else
		progress("capturing %zu spin scenarios, up to %d at once", n, opt->jobs);
	guest_capture_all(boots, n, opt->jobs, errors, environment);
	for (size_t i = 0; i < n; i++)
		if (errors[i])
			refused(&sc[i], errors[i]);
	json_add(environment, "event_channel", json_str(traced ? "trace" : "json"));
	if (traced)
		decode_all(boots, n, raw_paths, environment);
	/* The same guest for every scenario of the run: described once. */
	if (!json_get(environment, "module"))
		describe(g, environment);
	for (size_t i = 0; i < n; i++) {
		free((char *)boots[i].name);
		free((char *)boots[i].append);
		free((char *)boots[i].prepare);
		free((char *)boots[i].events_path);
		free((char *)boots[i].trace_path);
	}
	free(errors);
	free(boots);
}

const struct live_driver spin_linux_driver = {
	.name = "linux",
	.run = linux_run,
};
