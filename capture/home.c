// SPDX-License-Identifier: MIT
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "die.h"
#include "home.h"
#include "proc.h"

/*
 * The tree of the running executable: the directory above the one holding
 * it (build/capture or build/asan/capture) that has scenarios/.
 */
const char *toolkit_tree(void)
{
	static char tree[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (tree[0])
		return tree;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die(EXIT_ENV_MISSING, "cannot find the capture executable; set CAPTURE_HOME");
	exe[n] = '\0';
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(exe, '/');
		char *probe;

		if (!slash)
			break;
		*slash = '\0';
		probe = xasprintf("%s/scenarios", exe);
		if (file_exists(probe)) {
			free(probe);
			snprintf(tree, sizeof(tree), "%s", exe);
			return tree;
		}
		free(probe);
	}
	die(EXIT_ENV_MISSING, "cannot find the capture source tree; set CAPTURE_HOME");
}

/* The source tree (scenarios/, qemu/, bpf/ ...): $CAPTURE_HOME, else the executable's. */
const char *capture_home(void)
{
	const char *home = getenv("CAPTURE_HOME");

	return home ? home : toolkit_tree();
}
