// SPDX-License-Identifier: MIT
/*
 * The spin system's live entry (capture/live.h): `capture spin` runs its
 * scenarios on a real kernel's spinlock with one of the drivers below.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../capture/corpus.h"
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../../capture/system.h"
#include "../../folders/spin/spin.h"
#include "../guest-live.h"
#include "domain.h"
#include "driver.h"

static const char spin_usage[] =
	"usage: capture spin --scenario NAME|all|domain [options]\n\n"
	"Boot a kernel, run the scenario on one real spinlock, fold the events\n"
	"the kernel reports into (pre, action, post) windows.  Scenarios are the\n"
	"files NN-NAME of scenarios/spin/; \"all\" runs them in NN order into\n"
	"one corpus (window files spin/NN-NAME.ndjson); \"domain\" runs the\n"
	"scenarios generated from spin's audit domain (--cpus 2).\n";

/* The options' context (lc->sel.opts). */
struct spin_opts {
	struct spin_run_options run;
	const char *fold_with;     /* --fold SYSTEM */
};

static const struct spin_opts spin_defaults = {
	.run = { .cpus = 1 }, .fold_with = "spin",
};

static struct opt *spin_table(void *opts)
{
	struct spin_opts *o = opts;

	return opt_table_dup((const struct opt[]){
		OPT_NUMBER(0, "cpus", &o->run.cpus, "N", 1, 2, "guest CPUs, 1 "
			   "(default) or 2"),
		GUEST_LIVE_JOBS(&o->run.jobs),
		OPT_FLAG(0, "boot-only", &o->run.boot_only, "boot the same guest, "
			 "stop before the scenario,\nwrite nothing (the floor "
			 "bench/spin-capture uses)"),
		OPT_STRING(0, "fold", &o->fold_with, "SYSTEM", "spin (default: "
			   "{lockHeld, lockHolder}),\nspin-spinning (the state also "
			   "shows who spins)\nor spin-task (the kernel's events "
			   "over\n{lockState, pc}: docs/task-projections.md)"),
		OPT_END(),
	});
}

/* --fold: spin or a projection of it (spin-spinning, spin-task). */
static const struct folder *fold_lookup(const struct live_capture *lc)
{
	static const struct folder *const spin_folders[] = {
		&folder_spin, &folder_spin_spinning, &folder_spin_task,
	};
	const char *fold_with = ((const struct spin_opts *)lc->sel.opts)->fold_with;

	for (size_t i = 0; i < sizeof(spin_folders) / sizeof(*spin_folders); i++)
		if (!strcmp(fold_with, spin_folders[i]->name))
			return spin_folders[i];
	die(EXIT_USAGE, "--fold: '%s' does not fold spin streams "
	    "(spin, spin-spinning or spin-task)", fold_with);
}

/* --scenario domain: the set generated from the audit domain (domain.h). */
static int spin_select(struct live_capture *lc)
{
	const struct spin_opts *o = lc->sel.opts;
	struct spin_live *s;

	if (strcmp(lc->sel.scenario, SPIN_DOMAIN_SET))
		return 0;
	if (o->run.cpus != 2)
		die(EXIT_USAGE, "--scenario " SPIN_DOMAIN_SET " needs --cpus 2: "
		    "its lock()s on a held lock spin on the other CPU");
	if (lc->driver != &spin_linux_driver)
		die(EXIT_USAGE, "--scenario " SPIN_DOMAIN_SET " runs on --kernel "
		    "linux: its releases of a lock another actor holds have no "
		    "safe Asterinas SpinLock call");
	s = xcalloc(1, sizeof(*s));
	lc->n = spin_domain_scenarios(&s->sc);
	lc->sc = xcalloc(lc->n, sizeof(*lc->sc));
	for (size_t i = 0; i < lc->n; i++) {
		lc->sc[i].name = xstrdup(s->sc[i].name);
		lc->sc[i].run = xstrdup(strrchr(s->sc[i].path, '/') + 1);
		lc->sc[i].path = xstrdup(s->sc[i].path);
		lc->sc[i].index = s->sc[i].index;
	}
	lc->data = s;
	return 1;
}

/* The scenario files parsed (the domain set is already), the options. */
static void spin_prepare(struct live_capture *lc)
{
	struct spin_live *s = lc->data;

	lc->folder = fold_lookup(lc);
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->sc = xcalloc(lc->n, sizeof(*s->sc));
		for (size_t i = 0; i < lc->n; i++)
			spin_scenario_load(lc->sc[i].path, &s->sc[i]);
	}
	s->opt = ((const struct spin_opts *)lc->sel.opts)->run;
	if (!s->opt.jobs)
		s->opt.jobs = guest_live_jobs();
	lc->data = s;
}

/* --boot-only: one boot of the guest, nothing kept. */
static int spin_instead(struct live_capture *lc, struct cap_err *err)
{
	struct live_capture one = *lc;
	char *path;
	int fd, cleanup;

	if (!((const struct spin_opts *)lc->sel.opts)->run.boot_only)
		return LIVE_CAPTURE;
	if (!lc->sel.scenario)
		return live_misuse(err);
	path = owned_tmp_in(temp_dir(), "capture-boot-only");
	fd = mkstemp_on_failure(path, &cleanup);
	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s", path);
	close(fd);
	one.n = 1;
	one.raw = (char *[]){ path };
	lc->driver->run(&one);
	remove(path);
	cancel_on_failure(cleanup);
	free(path);
	return EXIT_OK;
}

/* What the manifest says about a scenario, a generated one by its text. */
static cJSON *scenario_entry(const struct spin_scenario *sc,
			     const struct scenario_file *f)
{
	struct strbuf text = STRBUF_INIT;
	char hex[65];

	if (!sc->generated)
		return guest_live_scenario(f, NULL, NULL, sc->nsteps);
	spin_scenario_text(sc, &text);
	sha256_hex(text.buf, text.len, hex);
	strbuf_release(&text);
	return guest_live_scenario(f, hex, SPIN_DOMAIN_SET, sc->nsteps);
}

/*
 * The raw ring-buffer pages vary; the kernel, and what the manifest says
 * about each scenario: its file, digest and steps.
 */
static void spin_describe(struct live_capture *lc, cJSON *m)
{
	const struct spin_live *s = lc->data;
	cJSON *scenarios = json_arr();

	guest_live_vary_ftrace(lc);
	json_add(m, "kernel", json_str(lc->driver->name));
	for (size_t i = 0; i < lc->n; i++)
		json_add(scenarios, NULL, scenario_entry(&s->sc[i], &lc->sc[i]));
	json_add(m, "scenarios", scenarios);
}

static void spin_release(struct live_capture *lc)
{
	struct spin_live *s = lc->data;

	spin_scenarios_free(s->sc, lc->n);
	free(s);
}

static const struct live_driver *const spin_drivers[] = {
	&spin_linux_driver,
	&spin_asterinas_driver,
	NULL,
};

const struct live_system live_spin = {
	.summary = "run a scenario on a real kernel's spinlock, fold it",
	.usage = spin_usage,
	.epilog = "environment: CAPTURE_CACHE (download and build cache), CAPTURE_ACCEL\n"
		  "(tcg or kvm: skip the probe), CAPTURE_GUEST_TIMEOUT (seconds a boot may\n"
		  "take, default 60), CAPTURE_GUEST_STALL (seconds a guest may write\n"
		  "nothing, default 10), CAPTURE_QEMU (the QEMU binary), CAPTURE_GUEST_BOOT\n"
		  "(snapshot, the default: the lean boot saved once and restored; lean,\n"
		  "the lean boot each run; classic: the slow boot bench/spin-capture\n"
		  "compares them with).\n",
	.scenario_help = "a scenario name, or all",
	.scenarios_help = "take the scenario files from DIR (default:\nscenarios/spin)",
	.dir_help = "corpus/spin-NAME",
	.table = spin_table,
	.opts = { sizeof(struct spin_opts), &spin_defaults },
	.driver_row = LIVE_DRIVER_ROW('k', "kernel", "KERNEL", "linux (default: "
				      "Debian's kernel under QEMU) or\nasterinas"),
	.drivers = spin_drivers,
	.raw_ext = "log",
	.select = spin_select,
	.prepare = spin_prepare,
	.instead = spin_instead,
	.describe = spin_describe,
	.release = spin_release,
};
