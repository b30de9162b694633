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
#include "../projection.h"
#include "../system-corpus.h"

static const char fold_usage[] =
	"usage: capture fold [options] SYSTEM INPUT...\n\n"
	"Fold recorded raw streams into windows.  Each INPUT is one run: a file,\n"
	"or a directory for systems that record one file per process (PGo).\n"
	"Window files are SYSTEM/RUN.ndjson, RUN being INPUT's name without\n"
	"its extension.  SYSTEM may be a spec with a projection (a path, or a\n"
	"*.probes file): its events are folded by it (docs/projection.md).\n";

int cmd_fold(int argc, char **argv)
{
	struct output_options out = OUTPUT_OPTIONS_INIT;
	const struct opt options[] = {
		OPT_OUTPUT(&out, "corpus/SYSTEM"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { fold_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);
	const struct folder *f;
	struct corpus *c;
	cJSON *runs;
	char *dir;

	if (argc - first < 2)
		opt_usage(&cmd, 0);
	f = system_lookup(argv[first])->folder;
	dir = out.dir ? xstrdup(out.dir) : xasprintf("corpus/%s", f->name);
	/* the old corpus goes at commit: an input inside it would go too */
	refuse_output_over_inputs(dir, argv + first + 1, argc - first - 1, 1);
	c = system_corpus_begin(dir, f, argc, argv);
	runs = fold_inputs(f, c, argc - first - 1, argv + first + 1,
			   output_format_for(&out, f));
	system_corpus_commit(c, runs, dir);
	free(dir);
	return EXIT_OK;
}
