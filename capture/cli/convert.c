// SPDX-License-Identifier: MIT
/* capture convert IN OUT: a window file from one form and JSON style to another. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "../fold.h"
#include "command.h"
#include "../die.h"
#include "../options.h"
#include "../proc.h"
#include "../window-read.h"

static const char convert_usage[] =
	"usage: capture convert [options] IN OUT\n\n"
	"Rewrite the window file IN (event or stream form, detected; ITF if\n"
	"named *.itf.json) as OUT (\"-\": stdout) in the chosen form and JSON\n"
	"style, with the same writer fold uses, so both agree byte for byte.\n"
	"OUT is written whole or not at all.  Every window's pre_state must be\n"
	"the previous window's post_state (the writer carries it over, in every\n"
	"form).  ITF output names the run's source and run as IN's ITF #meta\n"
	"does, else as IN and its name, and takes the system's value types from\n"
	"--system or the action names.\n\n"
	"OUT that exists is replaced only with --force (and never when it is IN);\n"
	"OUT named *.itf.json is written in ITF unless --form says otherwise,\n"
	"and a --form its name contradicts (event or stream as *.itf.json, ITF\n"
	"as *.ndjson) is refused: capture reads the form from the name.\n\n"
	"options:\n"
	"      --form FORM      event (default; itf for OUT named *.itf.json),\n"
	"                       stream, or itf\n"
	"      --json STYLE     python (default), compact, or canonical (RFC 8785)\n"
	"      --system NAME    the system (ITF output: if the action names do\n"
	"                       not tell); IN must hold its windows\n"
	"  -f, --force          replace OUT if it exists\n"
	"  -h, --help           this text\n";

/*
 * The writer (fold's) takes each window's pre-state from the last post
 * (the stream and ITF forms carry only post-states): a window whose pre
 * differs would be rewritten, in any form, so none may.
 */
static void check_chained(const struct window_file *wf)
{
	for (size_t i = 1; i < wf->n; i++)
		if (!cJSON_Compare(wf->w[i].pre, wf->w[i - 1].post, 1))
			die_at(EXIT_BAD_INPUT, wf->path, wf->w[i].line,
			       "pre_state is not the previous window's "
			       "post_state: the writer would replace it");
}

/* What an ITF output says of its run: IN's own #meta, else IN. */
static struct itf_head itf_head_of(const struct window_file *wf,
				   const struct folder *f, char **stem)
{
	const char *source = json_get_str(wf->meta, "source");
	const char *run = json_get_str(wf->meta, "run");
	const char *base = strrchr(wf->path, '/');

	*stem = xstrdup(base ? base + 1 : wf->path);
	if (has_suffix(*stem, window_file_ext(wf->form)))
		(*stem)[strlen(*stem) - strlen(window_file_ext(wf->form))] = 0;
	return (struct itf_head){
		.system = f->name, .source = source ? source : wf->path,
		.run = run ? run : *stem, .types = f->itf,
	};
}

static void convert(const struct window_file *wf, const struct folder *sys,
		    struct output_format fmt, const char *out)
{
	struct window_writer *w;
	cJSON *counts = json_obj();
	char *buf = NULL, *stem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct itf_head head = { 0 };

	if (!f)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	check_chained(wf);
	if (sys)
		head = itf_head_of(wf, sys, &stem);
	/* an empty file was refused: the initial state is there */
	w = windows_open_file(f, wf->path, fmt, wf->initial, &head);
	for (size_t i = 0; i < wf->n; i++)
		windows_add(w, wf->w[i].action, json_dup(wf->w[i].data),
			    json_dup(wf->w[i].post));
	windows_close(w, counts);
	if (ferror(f) | fclose(f))
		die(EXIT_CAPTURE_FAILED, "out of memory");
	if (!strcmp(out, "-")) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			die(EXIT_CAPTURE_FAILED, "write error on standard "
			    "output: %s", strerror(errno));
	} else
		write_file_atomic(out, buf, len);
	free(buf);
	free(stem);
	cJSON_Delete(counts);
}

/*
 * The form of OUT: --form, else what its name says.  A name that says
 * another form than --form would be read back in that other form.
 */
static enum window_form out_form(const struct output_options *o, const char *out)
{
	int itf_name = has_suffix(out, window_file_ext(FORM_ITF));

	if (o->form < 0)
		return itf_name ? FORM_ITF : FORM_EVENT;
	if (itf_name != (o->form == FORM_ITF) &&
	    (itf_name || has_suffix(out, window_file_ext(FORM_EVENT))))
		die(EXIT_USAGE, "output %s: its name says %s form, --form says %s",
		    out, itf_name ? "ITF" : "event or stream", o->form_arg);
	return (enum window_form)o->form;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "form", required_argument, NULL, 'F' },
		{ "json", required_argument, NULL, 'J' },
		{ "system", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct output_options o = OUTPUT_OPTIONS_INIT;
	struct output_format fmt;
	struct window_set ws = { 0 };
	const char *system = NULL, *out;
	int opt, force = 0;

	while ((opt = getopt_long(argc, argv, "fh", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(convert_usage, 1);
		if (opt == 's')
			system = optarg;
		else if (opt == 'f')
			force = 1;
		else if (!output_option(opt, optarg, &o))
			usage(convert_usage, 0);
	}
	if (argc - optind != 2)
		usage(convert_usage, 0);
	out = argv[optind + 1];
	fmt.form = out_form(&o, out);
	fmt.style = o.style;
	if (strcmp(out, "-"))
		check_output_file(out, argv + optind, 1, force);
	if (system)
		system_lookup(system);
	window_set_add_file(&ws, argv[optind], argv[optind]);
	/* IN must be the system's, in every form; ITF needs one */
	if (system || fmt.form == FORM_ITF)
		window_set_system(&ws, system);
	/* only ITF writes what the system declares about its values */
	convert(&ws.files[0], fmt.form == FORM_ITF ? ws.system : NULL, fmt, out);
	window_set_free(&ws);
	return EXIT_OK;
}
