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
#include "../../capture/command.h"
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../../qemu/guest.h"
#include "driver.h"

/* x86's COMMAND_LINE_SIZE, less room for the runner's own words. */
#define MAX_SCENARIO_WORDS 1600

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
	char *dir, *src, *kbuild, *script, *ko;
	struct guest_file initrd[2];

	if (g.initrd)
		return &g;
	dir = xasprintf("%s/scenarios/spin/module", capture_home());
	src = xasprintf("%s/spin.c", dir);
	kbuild = xasprintf("%s/Kbuild", dir);
	script = xasprintf("%s/guest.sh", dir);
	guest_kernel_get(&g.kernel);
	ko = guest_module_build(&g.kernel, "spin",
				(const char *const[]){ src, kbuild, NULL },
				g.module_sha);
	initrd[0] = (struct guest_file){ ko, "spin.ko" };
	initrd[1] = (struct guest_file){ script, "guest.sh" };
	g.initrd = guest_initramfs(initrd, 2, g.initrd_sha);
	free(ko);
	free(script);
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

/* "capture_name=NAME capture_steps=0l1t0r... capture_cpus=N" for the module. */
static char *scenario_words(const struct spin_scenario *sc, int cpus)
{
	static const char op_letter[] = { [SPIN_LOCK] = 'l', [SPIN_TRY] = 't',
					  [SPIN_RELEASE] = 'r' };
	char *steps = xcalloc(2 * sc->nsteps + 1, 1);
	char *words;

	for (size_t i = 0; i < sc->nsteps; i++) {
		steps[2 * i] = '0' + sc->steps[i].actor;
		steps[2 * i + 1] = op_letter[sc->steps[i].op];
	}
	words = xasprintf("capture_name=%s capture_steps=%s capture_cpus=%d",
			  sc->name, steps, cpus);
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

static void linux_run(const struct spin_scenario *sc, size_t n,
		      const struct spin_run_options *opt, char *const raw_paths[],
		      cJSON *environment)
{
	const struct linux_guest *g = prepare();
	struct guest_boot *boots = xcalloc(n, sizeof(*boots));
	char **errors = xcalloc(n, sizeof(*errors));

	for (size_t i = 0; i < n; i++)
		boots[i] = (struct guest_boot){
			.name = boot_name(&sc[i]), .append = scenario_words(&sc[i], opt->cpus),
			.cpus = opt->cpus, .events_path = raw_paths[i],
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
	/* The same guest for every scenario of the run: described once. */
	if (!json_get(environment, "module"))
		describe(g, environment);
	for (size_t i = 0; i < n; i++) {
		free((char *)boots[i].name);
		free((char *)boots[i].append);
	}
	free(errors);
	free(boots);
}

const struct spin_driver spin_linux_driver = {
	.name = "linux",
	.run = linux_run,
};
