/* SPDX-License-Identifier: MIT */
/*
 * Spin drivers: one per kernel that can run a spin scenario, each a
 * live driver (capture/live.h) of the spin system (live.c).
 *
 * A driver executes the scenarios on its kernel's real spinlock and writes
 * the raw bytes of each one's event channel (CAPTURE BEGIN, one JSON event
 * a line, CAPTURE END) to lc->raw[i], the same bytes whatever the number
 * of jobs, and adds provenance (package versions, sha256s, accelerator) to
 * lc->environment.  It dies with EXIT_ENV_MISSING or EXIT_CAPTURE_FAILED
 * and a clear message; with EXIT_BAD_INPUT naming the scenario's file:line
 * when the kernel refuses a step (the first such scenario in order).
 * Adding a kernel means one driver and one line in live.c's drivers[].
 */
#ifndef SCENARIOS_SPIN_DRIVER_H
#define SCENARIOS_SPIN_DRIVER_H

#include "../../capture/live.h"
#include "steps.h"

/* The spin system's own options, every driver's to honour or refuse. */
struct spin_run_options {
	int cpus;                   /* guest CPUs: 1 (default) or 2 */
	/*
	 * Boot the same guest but stop at once, before the scenario (the
	 * floor that bench/spin-capture compares a capture with); nothing
	 * is written to the raw path.
	 */
	int boot_only;
	int jobs;                   /* scenarios run at once, where the kernel can */
};

/* lc->data of a spin capture: the parsed scenario files and the options. */
struct spin_live {
	struct spin_scenario *sc;   /* lc->n of them */
	struct spin_run_options opt;
};

extern const struct live_driver spin_linux_driver;
extern const struct live_driver spin_asterinas_driver;

#endif
