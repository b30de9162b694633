/* SPDX-License-Identifier: MIT */
/*
 * Spin drivers: one per kernel that can run a spin scenario.
 *
 * A driver executes one scenario on its kernel's real spinlock and writes
 * the raw bytes of the event channel (CAPTURE BEGIN, one JSON event a
 * line, CAPTURE END) to a file; the spin folder turns them into windows.
 * Adding a kernel means one driver and one line in spin_drivers[].
 */
#ifndef SCENARIOS_SPIN_DRIVER_H
#define SCENARIOS_SPIN_DRIVER_H

#include <cJSON.h>
#include "steps.h"

struct spin_run_options {
	int cpus;                   /* guest CPUs: 1 (default) or 2 */
	const char *asterinas_src;  /* Asterinas source tree (asterinas driver) */
	/*
	 * Boot the same guest but stop at once, before the scenario (the
	 * floor that bench/spin-capture compares a capture with); nothing
	 * is written to raw_path.
	 */
	int boot_only;
	int jobs;                   /* scenarios run at once, where the kernel can */
};

struct spin_driver {
	const char *name;   /* "linux", "asterinas" */
	/*
	 * Run the @n scenarios @sc (up to opt->jobs at once) and write the
	 * raw event-channel bytes of sc[i] to @raw_paths[i]: the same bytes
	 * whatever the number of jobs.  Adds provenance (package versions,
	 * sha256s, accelerator) to @environment.  Dies with EXIT_ENV_MISSING
	 * or EXIT_CAPTURE_FAILED and a clear message; with EXIT_BAD_INPUT
	 * naming the scenario's file:line when the kernel refuses a step (the
	 * first such scenario in order).
	 */
	void (*run)(const struct spin_scenario *sc, size_t n,
		    const struct spin_run_options *opt, char *const raw_paths[],
		    cJSON *environment);
};

extern const struct spin_driver spin_linux_driver;
extern const struct spin_driver spin_asterinas_driver;

/* NULL-terminated table of drivers. */
extern const struct spin_driver *const spin_drivers[];
const struct spin_driver *spin_driver_find(const char *name);

#endif
