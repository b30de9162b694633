/* SPDX-License-Identifier: MIT */
/*
 * What the live entries of the kernel-module systems under QEMU (spin,
 * rwlock: capture/live.h) share: how many guests boot at once, the raw
 * ring-buffer pages that vary, the manifest's entry of a scenario.
 */
#ifndef SCENARIOS_GUEST_LIVE_H
#define SCENARIOS_GUEST_LIVE_H

#include <stddef.h>
#include <cJSON.h>
#include "../capture/live.h"

/* Guests booted at most at once. */
#define GUEST_LIVE_MAX_JOBS 16

/* One boot per host CPU (a TCG guest keeps one busy), at most the maximum. */
int guest_live_jobs(void);

/*
 * The row of the kernel-module systems' -j/--jobs N, filling the int @v
 * (0: not given): guests booted at once, not recorded in the manifest
 * (the corpus is the same for any N).
 */
#define GUEST_LIVE_JOBS(v) { .kind = OPT_KIND_NUMBER, .short_name = 'j', \
	.long_name = "jobs", .value = OPT_FIELD(v, int *), .size = sizeof(int), \
	.argh = "N", .lo = 1, .hi = GUEST_LIVE_MAX_JOBS, .flags = OPT_UNRECORDED, \
	.help = "scenarios booted at once (default: the number of\nCPUs); the " \
		"corpus is the same for any N" }

/* raw/RUN.ftrace of every run that has one: listed as varying (time stamps). */
void guest_live_vary_ftrace(struct live_capture *lc);

/*
 * {name, file, [generated,] sha256, steps} of scenario @f with @nsteps
 * steps: @sha256 the digest of its text, or NULL to read it from its file;
 * @generated the set it was generated in, or NULL for a scenario file.
 */
cJSON *guest_live_scenario(const struct scenario_file *f, const char *sha256,
			   const char *generated, size_t nsteps);

#endif
