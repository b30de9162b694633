// SPDX-License-Identifier: MIT
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "home.h"
#include "die.h"
#include "proc.h"

/*
 * The source tree (scenarios/, qemu/, bpf/ ...): $CAPTURE_HOME, else the
 * directory above the one holding the executable (build/capture).
 */
const char *capture_home(void)
{
	static char home[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (home[0])
		return home;
	if (getenv("CAPTURE_HOME")) {
		snprintf(home, sizeof(home), "%s", getenv("CAPTURE_HOME"));
		return home;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die(EXIT_ENV_MISSING, "cannot find the capture executable; set CAPTURE_HOME");
	exe[n] = '\0';
	/* build/capture or build/asan/capture: climb until scenarios/ is there. */
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(exe, '/');
		char *probe;

		if (!slash)
			break;
		*slash = '\0';
		probe = xasprintf("%s/scenarios", exe);
		if (file_exists(probe)) {
			free(probe);
			snprintf(home, sizeof(home), "%s", exe);
			return home;
		}
		free(probe);
	}
	die(EXIT_ENV_MISSING, "cannot find the capture source tree; set CAPTURE_HOME");
}
