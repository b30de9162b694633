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
 * The options of the kernel-module systems, spelled and documented once:
 * -j/--jobs N (guests booted at once: not recorded in the manifest, the
 * corpus is the same for any N) and --cpus 1|2 (whose default and help
 * line are each system's).  Each system's table lists them with its own
 * value for --cpus.
 */
#define GUEST_LIVE_JOBS_OPTION { "jobs", required_argument, NULL, 'j' }
#define GUEST_LIVE_JOBS_HELP \
	"  -j, --jobs N         scenarios booted at once (default: the number of\n" \
	"                       CPUs); the corpus is the same for any N\n"
/* -j/--jobs @arg: 1 to the maximum, else dies with EXIT_USAGE. */
int guest_live_jobs_option(const char *arg);
/* --cpus @arg: 1 or 2, else dies with EXIT_USAGE. */
int guest_live_cpus_option(const char *arg);

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
