// SPDX-License-Identifier: MIT
/* capture convert IN OUT: a window file from one form and JSON style to another. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "../command.h"
#include "../die.h"
#include "../options.h"
#include "../proc.h"
#include "../window-read.h"

static const char convert_usage[] =
	"usage: capture convert [options] IN OUT\n\n"
	"Rewrite the window file IN (event or stream form, detected) as OUT\n"
	"(\"-\": stdout) in the chosen form and JSON style, with the same writer\n"
	"fold uses, so both agree byte for byte.  OUT is written whole or not at\n"
	"all.  Event form to stream form needs every window's pre_state to be\n"
	"the previous window's post_state.\n\n"
	"options:\n"
	"      --form FORM      event (default) or stream\n"
	"      --json STYLE     python (default), compact, or canonical (RFC 8785)\n"
	"  -h, --help           this text\n";

/* The stream form carries only post-states: each pre must be the last post. */
static void check_chained(const struct window_file *wf)
{
	for (size_t i = 1; i < wf->n; i++)
		if (!cJSON_Compare(wf->w[i].pre, wf->w[i - 1].post, 1))
			die_at(EXIT_BAD_INPUT, wf->path, wf->w[i].line,
			       "pre_state is not the previous window's "
			       "post_state: the stream form cannot carry it");
}

static void convert(const struct window_file *wf, struct output_format fmt,
		    const char *out)
{
	struct window_writer *w;
	cJSON *counts = json_obj();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	if (fmt.form == FORM_STREAM)
		check_chained(wf);
	/* window_file_load() refused a file without windows */
	w = windows_open_file(f, fmt, wf->initial);
	for (size_t i = 0; i < wf->n; i++)
		windows_add(w, wf->w[i].action, json_dup(wf->w[i].data),
			    json_dup(wf->w[i].post));
	windows_close(w, counts);
	if (ferror(f) | fclose(f))
		die(EXIT_CAPTURE_FAILED, "out of memory");
	if (!strcmp(out, "-"))
		fwrite(buf, 1, len, stdout);
	else
		write_file_atomic(out, buf, len);
	free(buf);
	cJSON_Delete(counts);
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "form", required_argument, NULL, 'F' },
		{ "json", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct output_options o = OUTPUT_OPTIONS_INIT;
	struct output_format fmt;
	struct window_file wf;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(convert_usage, 1);
		if (!output_option(opt, optarg, &o))
			usage(convert_usage, 0);
	}
	if (argc - optind != 2)
		usage(convert_usage, 0);
	fmt.form = o.form >= 0 ? (enum window_form)o.form : FORM_EVENT;
	fmt.style = o.style;
	if (strcmp(argv[optind + 1], "-"))
		check_output_file(argv[optind + 1]);
	window_file_load(&wf, argv[optind], argv[optind]);
	convert(&wf, fmt, argv[optind + 1]);
	window_file_free(&wf);
	return EXIT_OK;
}
