// SPDX-License-Identifier: MIT
/*
 * The audit over one window file: the system inferred from the windows'
 * actions, the report built, printed as text and drawn as SVG.  Deaths
 * are bad input (3), a window the system declares impossible (4), naming
 * the file, or no system to tell (2).
 */
#include <stdio.h>
#include <stdlib.h>
#include "capture/audit-report.h"
#include "capture/audit.h"
#include "capture/json.h"
#include "capture/window-read.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *path = fuzz_input("windows.ndjson", data, size);
	static FILE *null;
	struct window_set ws = { 0 };
	struct strbuf svg = STRBUF_INIT;
	cJSON *rep;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (setjmp(fuzz_jmp))
		return fuzz_died(FUZZ_CODE(EXIT_BAD_INPUT) |
				 FUZZ_CODE(EXIT_CHECK_FAILED) |
				 FUZZ_CODE(EXIT_USAGE));
	window_set_add(&ws, path);
	window_set_system(&ws, NULL);
	rep = audit_report(&ws);
	audit_print_text(null, rep);
	audit_write_svg(&svg, rep);
	strbuf_release(&svg);
	cJSON_Delete(rep);
	window_set_free(&ws);
	return 0;
}
