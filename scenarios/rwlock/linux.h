/* SPDX-License-Identifier: MIT */
/*
 * The rwlock driver: Debian's kernel under QEMU, the rwlock module
 * (module/rwlock.c) running each scenario on one real rwlock_t, at one
 * CPU (one kthread for both actors) or two (one pinned kthread per
 * actor, where a lock() really waits for the other's unlock).
 */
#ifndef SCENARIOS_RWLOCK_LINUX_H
#define SCENARIOS_RWLOCK_LINUX_H

#include <cJSON.h>
#include "steps.h"

/*
 * Run the @n scenarios @sc, up to @jobs guests at once, at @cpus CPUs;
 * write sc[i]'s decoded stream to @raw[i] (its channels beside it:
 * RUN.ftrace, RUN.json.log).  Adds provenance to @env.  Dies with the
 * README's exit codes; EXIT_BAD_INPUT naming the file:line of a step the
 * module refuses.
 */
void rwlock_linux_run(const struct rwlock_scenario *sc, size_t n, int cpus,
		      int jobs, char *const raw[], cJSON *env);

#endif
