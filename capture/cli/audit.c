// SPDX-License-Identifier: MIT
/* capture audit INPUT...: coverage and base rates of window files. */
#include <stdlib.h>
#include <getopt.h>
#include "../audit.h"
#include "command.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"

static const char audit_usage[] =
	"usage: capture audit [options] INPUT...\n\n"
	"Report what window files cover: the system's domain of (pre-state,\n"
	"action, data) combinations covered and not, windows per action, the\n"
	"identity base rate (post == pre), schedule diversity across runs and\n"
	"the combinations only one run covers.  Each INPUT is a corpus (with\n"
	"MANIFEST.json), a directory of *.ndjson window files, or one window\n"
	"file, in event or stream form; all inputs merge into one report.\n\n"
	"options:\n"
	"      --system NAME    the system (default: from MANIFEST.json, else\n"
	"                       inferred from the action names)\n"
	"      --json           the report as JSON instead of the text table\n"
	"      --svg FILE       also draw the pre-state x action coverage matrix\n"
	"                       (FILE that exists: only with --force, never an\n"
	"                       INPUT)\n"
	"  -f, --force          replace the --svg FILE if it exists\n"
	"  -h, --help           this text\n";

int cmd_audit(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "system", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 'g' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct window_set ws = { 0 };
	const char *system = NULL, *svg = NULL;
	int opt, as_json = 0, force = 0;
	long long windows = 0;
	cJSON *rep;

	while ((opt = getopt_long(argc, argv, "fh", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(audit_usage, 1);
		else if (opt == 'f')
			force = 1;
		else if (opt == 's')
			system = optarg;
		else if (opt == 'j')
			as_json = 1;
		else if (opt == 'g')
			svg = optarg;
		else
			usage(audit_usage, 0);
	}
	if (optind == argc)
		usage(audit_usage, 0);
	/* a glob's first window file would become the SVG (--svg *.ndjson) */
	if (svg && (has_suffix(svg, window_file_ext(FORM_EVENT)) ||
		    has_suffix(svg, window_file_ext(FORM_ITF))))
		die(EXIT_USAGE, "--svg %s: its name says a window file, not an "
		    "SVG", svg);
	if (svg)
		check_output_file(svg, argv + optind, argc - optind, force);
	for (int i = optind; i < argc; i++)
		window_set_add(&ws, argv[i]);
	window_set_system(&ws, system);
	rep = audit_report(&ws);
	json_get_int(rep, "windows", &windows);
	if (!windows) {
		/* files of initial states only: no step to report on */
		cJSON_Delete(rep);
		window_set_free(&ws);
		die_at(EXIT_BAD_INPUT, argc - optind == 1 ? argv[optind] : NULL, 0,
		       "no windows to audit (only initial states)");
	}
	if (svg) {
		struct strbuf sb = STRBUF_INIT;

		audit_write_svg(&sb, rep);
		write_file_atomic(svg, sb.buf, sb.len);
		strbuf_release(&sb);
	}
	if (as_json)
		json_print_indented(stdout, rep);
	else
		audit_print_text(stdout, rep);
	cJSON_Delete(rep);
	window_set_free(&ws);
	return EXIT_OK;
}
