// SPDX-License-Identifier: MIT
/*
 * The rwlock system's live entry (capture/live.h): `capture rwlock` runs
 * its scenarios on a real kernel's rwlock_t with the Linux driver.
 */
#include <stdlib.h>
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../../capture/live.h"
#include "../guest-live.h"
#include "linux.h"

static const char rwlock_usage[] =
	"usage: capture rwlock --scenario NAME|all [options]\n\n"
	"Boot Debian's kernel under QEMU, run the scenario on one real rwlock_t\n"
	"(two actors: read_lock, read_trylock, read_unlock, write_lock,\n"
	"write_trylock, write_unlock), fold what the kernel reports -- its\n"
	"lock:contention_begin/end where a lock() waited -- into windows over\n"
	"{readers, writer}.  Scenarios are the files NN-NAME of scenarios/rwlock/.\n";

/* The options' context (lc->sel.opts). */
struct rwlock_opts {
	int cpus, jobs;
};

static const struct rwlock_opts rwlock_defaults = { .cpus = 2 };

static struct opt *rwlock_table(void *opts)
{
	struct rwlock_opts *o = opts;

	return opt_table_dup((const struct opt[]){
		OPT_NUMBER(0, "cpus", &o->cpus, "N", 1, 2, "guest CPUs, 2 (default: "
			   "a lock() can wait for the\nother actor) or 1"),
		GUEST_LIVE_JOBS(&o->jobs),
		OPT_END(),
	});
}

static void rwlock_prepare(struct live_capture *lc)
{
	struct rwlock_scenario *sc = xcalloc(lc->n, sizeof(*sc));

	for (size_t i = 0; i < lc->n; i++)
		rwlock_scenario_load(&sc[i], lc->sc[i].name, lc->sc[i].run,
				     lc->sc[i].path);
	lc->data = sc;
}

static void linux_run(struct live_capture *lc)
{
	const struct rwlock_opts *o = lc->sel.opts;

	rwlock_linux_run(lc->data, lc->n, o->cpus, o->jobs ? o->jobs : guest_live_jobs(),
			 lc->raw, lc->environment);
}

/* The raw pages vary; what the manifest says about each scenario. */
static void rwlock_describe(struct live_capture *lc, cJSON *m)
{
	const struct rwlock_scenario *sc = lc->data;
	cJSON *scenarios = json_arr();

	guest_live_vary_ftrace(lc);
	json_add(m, "kernel", json_str(lc->driver->name));
	for (size_t i = 0; i < lc->n; i++)
		json_add(scenarios, NULL, guest_live_scenario(&lc->sc[i], NULL, NULL,
								 sc[i].nsteps));
	json_add(m, "scenarios", scenarios);
}

static void rwlock_release(struct live_capture *lc)
{
	struct rwlock_scenario *sc = lc->data;

	for (size_t i = 0; i < lc->n; i++)
		rwlock_scenario_free(&sc[i]);
	free(sc);
}

static const struct live_driver rwlock_linux_driver = {
	.name = "linux",
	.run = linux_run,
};

static const struct live_driver *const rwlock_drivers[] = {
	&rwlock_linux_driver,
	NULL,
};

const struct live_system live_rwlock = {
	.summary = "run a scenario on a real kernel's rwlock_t, fold it",
	.usage = rwlock_usage,
	.epilog = "environment: those of capture spin (CAPTURE_CACHE, CAPTURE_ACCEL,\n"
		  "CAPTURE_GUEST_TIMEOUT, CAPTURE_GUEST_STALL, CAPTURE_QEMU,\n"
		  "CAPTURE_TRACE_KB); see docs/rwlock.md.\n",
	.scenario_help = "a scenario name, or all",
	.scenarios_help = "take the scenario files from DIR (default:\nscenarios/rwlock)",
	.dir_help = "corpus/rwlock-NAME",
	.table = rwlock_table,
	.opts = { sizeof(struct rwlock_opts), &rwlock_defaults },
	.driver_row = LIVE_DRIVER_ROW('k', "kernel", "linux", "the kernel (Debian's "
				      "under QEMU, the one driver)"),
	.drivers = rwlock_drivers,
	.raw_ext = "log",
	.prepare = rwlock_prepare,
	.describe = rwlock_describe,
	.release = rwlock_release,
};
