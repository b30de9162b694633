// SPDX-License-Identifier: MIT
/*
 * The manifest readers: the input is a corpus's MANIFEST.json, read as
 * `capture audit CORPUS` reads it (system, runs' window files, named only)
 * and as `capture check CORPUS` does (system, runs' inputs).  The inputs a
 * manifest names are usually not there: check dies with exit 3 naming
 * one, after reading the whole manifest; those it finds (relative to the
 * corpus, else to the working directory) it folds.  Deaths must name a
 * file: the manifest's, or an input's.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "capture/cli/command.h"
#include "capture/window-read.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *path = fuzz_input("MANIFEST.json", data, size);
	char *dir = xstrdup(path);
	struct window_set ws = { .lazy = 1 };

	*strrchr(dir, '/') = '\0';
	if (setjmp(fuzz_jmp)) {
		free(dir);
		return fuzz_died_elsewhere(FUZZ_CODE(EXIT_BAD_INPUT) |
					   FUZZ_CODE(EXIT_CHECK_FAILED) |
					   FUZZ_CODE(EXIT_CAPTURE_FAILED) |
					   FUZZ_CODE(EXIT_USAGE));
	}
	window_set_add(&ws, dir);
	window_set_system(&ws, NULL);
	window_set_free(&ws);
	{
		char *argv[] = { "check", dir, NULL };

		optind = 0;
		cmd_check(2, argv);
	}
	free(dir);
	return 0;
}
