// SPDX-License-Identifier: MIT
/* capture check SYSTEM INPUT...: every check of fold, nothing written. */
#include <stdio.h>
#include <stdlib.h>
#include "../../folders/folder.h"
#include "../command.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "fold-inputs.h"

static const char check_usage[] =
	"usage: capture check SYSTEM INPUT...\n\n"
	"Run every check that 'capture fold' runs (causal order, self-consistency,\n"
	"framing, lost events) and write nothing.  Exit 0 when all pass; 3 for\n"
	"input that does not parse, 4 for a failed check (file:line on stderr).\n";

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct output_options out = OUTPUT_OPTIONS_INIT;
	const struct folder *f;
	cJSON *runs, *counts, *c;
	long long total = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
		usage(check_usage, opt == 'h');
	if (argc - optind < 2)
		usage(check_usage, 0);
	f = folder_lookup(argv[optind]);
	runs = fold_inputs(f, NULL, argc - optind - 1, argv + optind + 1,
			   output_format_for(&out, f));
	counts = run_counts(runs);
	cJSON_ArrayForEach(c, counts)
		total += (long long)c->valuedouble;
	printf("%s: %d run(s), %lld windows, all checks passed\n", f->name,
	       cJSON_GetArraySize(runs), total);
	cJSON_Delete(counts);
	cJSON_Delete(runs);
	return EXIT_OK;
}
