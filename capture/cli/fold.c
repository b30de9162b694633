// SPDX-License-Identifier: MIT
/* capture fold SYSTEM INPUT...: recorded raw streams -> corpus of windows. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include "../fold.h"
#include "command.h"
#include "../corpus.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "../system-corpus.h"

static const char fold_usage[] =
	"usage: capture fold [options] SYSTEM INPUT...\n\n"
	"Fold recorded raw streams into windows.  Each INPUT is one run: a file,\n"
	"or a directory for systems that record one file per process (PGo).\n"
	"Window files are SYSTEM/RUN.ndjson, RUN being INPUT's name without\n"
	"its extension.  SYSTEM may be a spec with a projection (a path, or a\n"
	"*.probes file): its events are folded by it (docs/projection.md).\n\n"
	"options:\n"
	OUTPUT_OPTIONS_HELP("corpus/SYSTEM")
	"  -h, --help           this text\n";

int cmd_fold(int argc, char **argv)
{
	static const struct option longopts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct output_options out = OUTPUT_OPTIONS_INIT;
	const struct folder *f;
	struct corpus *c;
	cJSON *runs;
	char *dir;
	int opt;

	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(fold_usage, 1);
		if (!output_option(opt, optarg, &out))
			usage(fold_usage, 0);
	}
	if (argc - optind < 2)
		usage(fold_usage, 0);
	f = system_lookup(argv[optind])->folder;
	dir = out.dir ? xstrdup(out.dir) : xasprintf("corpus/%s", f->name);
	/* the old corpus goes at commit: an input inside it would go too */
	refuse_output_over_inputs(dir, argv + optind + 1, argc - optind - 1, 1);
	c = system_corpus_begin(dir, f, argc, argv);
	runs = fold_inputs(f, c, argc - optind - 1, argv + optind + 1,
			   output_format_for(&out, f));
	system_corpus_commit(c, runs, dir);
	free(dir);
	return EXIT_OK;
}
