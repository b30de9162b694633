// SPDX-License-Identifier: MIT
/* capture audit INPUT...: coverage and base rates of window files. */
#include <stdlib.h>
#include "../audit-report.h"
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
	"file, in event or stream form; all inputs merge into one report.\n";

int cmd_audit(int argc, char **argv)
{
	const char *system = NULL, *svg = NULL;
	int as_json = 0, force = 0;
	const struct opt options[] = {
		OPT_STRING(0, "system", &system, "NAME", "the system (default: from "
			   "MANIFEST.json, else\ninferred from the action names)"),
		OPT_FLAG(0, "json", &as_json, "the report as JSON instead of the text table"),
		OPT_STRING(0, "svg", &svg, "FILE", "also draw the pre-state x action "
			   "coverage matrix\n(FILE that exists: only with --force, "
			   "never an\nINPUT)"),
		OPT_FLAG('f', "force", &force, "replace the --svg FILE if it exists"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { audit_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);
	struct window_set ws = { 0 };
	long long windows = 0;
	cJSON *rep;

	if (first == argc)
		opt_usage(&cmd, 0);
	/* a glob's first window file would become the SVG (--svg *.ndjson) */
	if (svg && (has_suffix(svg, window_file_ext(FORM_EVENT)) ||
		    has_suffix(svg, window_file_ext(FORM_ITF))))
		die(EXIT_USAGE, "--svg %s: its name says a window file, not an "
		    "SVG", svg);
	if (svg)
		check_output_file(svg, argv + first, argc - first, force);
	for (int i = first; i < argc; i++)
		window_set_add(&ws, argv[i]);
	window_set_system(&ws, system);
	rep = audit_report(&ws);
	json_get_int(rep, "windows", &windows);
	if (!windows) {
		/* files of initial states only: no step to report on */
		cJSON_Delete(rep);
		window_set_free(&ws);
		die_at(EXIT_BAD_INPUT, argc - first == 1 ? argv[first] : NULL, 0,
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
