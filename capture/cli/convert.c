// SPDX-License-Identifier: MIT
/* capture convert IN OUT: a window file from one form and JSON style to another. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../fold.h"
#include "command.h"
#include "../die.h"
#include "../options.h"
#include "../proc.h"
#include "../window-read.h"

static const char convert_usage[] =
	"usage: capture convert [options] IN OUT\n\n"
	"Rewrite the window file IN (event, stream or canonical form, detected;\n"
	"ITF if named *.itf.json) as OUT (\"-\": stdout) in the chosen form and\n"
	"JSON style, with the same writer fold uses, so both agree byte for byte.\n"
	"OUT is written whole or not at all.  Canonical IN (a file, a directory\n"
	"of SYSTEM/ACTION.ndjson files or a corpus) is sorted back into its\n"
	"traces: OUT is then a directory, OUT/TRACE.ndjson each, all rendered\n"
	"before the first is written; canonical OUT is one file, every action's\n"
	"windows in it.  Every window's pre_state must be\n"
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
	"                       stream, itf, or canonical\n"
	"      --json STYLE     python (default), compact, or canonical (RFC 8785)\n"
	"      --system NAME    the system (ITF output: if the action names do\n"
	"                       not tell); IN must hold its windows\n"
	"  -f, --force          replace OUT if it exists\n"
	"  -h, --help           this text\n";

/* The windows of one run, in order (a canonical file's are a trace's). */
struct run_windows {
	const char *name;      /* the trace (canonical input), else NULL */
	const char *path;      /* where its first window is, for messages */
	const cJSON *initial;
	const struct window **w;
	size_t n;
};

/*
 * The writer (fold's) takes each window's pre-state from the last post
 * (the stream and ITF forms carry only post-states): a window whose pre
 * differs would be rewritten, in any form, so none may.
 */
static void check_chained(const struct run_windows *r)
{
	for (size_t i = 1; i < r->n; i++)
		if (!cJSON_Compare(r->w[i]->pre, r->w[i - 1]->post, 1))
			die_at(EXIT_BAD_INPUT, r->w[i]->file, r->w[i]->line,
			       "pre_state is not the previous window's "
			       "post_state: the writer would replace it");
}

/* What an ITF or canonical output says of its run: IN's own #meta, else IN. */
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
		.run = run ? run : *stem, .types = f->itf, .actor = f->actor,
	};
}

/* @r in @fmt, with the writer fold uses; returns the bytes (caller frees). */
static char *render(const struct run_windows *r, struct output_format fmt,
		    const struct itf_head *head, size_t *len)
{
	struct window_writer *w;
	cJSON *counts = json_obj();
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	check_chained(r);
	w = windows_open_file(f, r->path, fmt, r->initial, head);
	for (size_t i = 0; i < r->n; i++)
		windows_add(w, r->w[i]->action, json_dup(r->w[i]->data),
			    json_dup(r->w[i]->post));
	windows_close(w, counts);
	if (ferror(f) | fclose(f))
		die(EXIT_CAPTURE_FAILED, "out of memory");
	cJSON_Delete(counts);
	return buf;
}

static void put(const char *out, const char *buf, size_t len)
{
	if (!strcmp(out, "-")) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			die(EXIT_CAPTURE_FAILED, "write error on standard "
			    "output: %s", strerror(errno));
	} else {
		write_file_atomic(out, buf, len);
	}
}

static void convert(const struct window_file *wf, const struct folder *sys,
		    struct output_format fmt, const char *out)
{
	/* an empty file was refused: the initial state is there */
	struct run_windows r = {
		.path = wf->path, .initial = wf->initial, .n = wf->n,
	};
	char *buf, *stem = NULL;
	size_t len;
	struct itf_head head = { 0 };

	r.w = xcalloc(wf->n + 1, sizeof(*r.w));
	for (size_t i = 0; i < wf->n; i++)
		r.w[i] = &wf->w[i];
	if (sys)
		head = itf_head_of(wf, sys, &stem);
	buf = render(&r, fmt, &head, &len);
	put(out, buf, len);
	free(buf);
	free(stem);
	free(r.w);
}

/* Canonical windows by trace, then seq. */
static int by_trace_seq(const void *a, const void *b)
{
	const struct window *x = *(const struct window *const *)a;
	const struct window *y = *(const struct window *const *)b;
	int c = strcmp(x->trace, y->trace);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Every window of the canonical files of @ws, sorted into runs, each of
 * seq 1, 2, ... with no gap or repeat: what fold wrote, split by action.
 */
static struct run_windows *canonical_runs(const struct window_set *ws,
					  size_t *nruns)
{
	const struct window **all = NULL;
	struct run_windows *runs = NULL;
	size_t n = 0;

	for (size_t f = 0; f < ws->n; f++) {
		if (ws->files[f].form != FORM_CANONICAL)
			die_at(EXIT_BAD_INPUT, ws->files[f].path, 1, "not in "
			       "the canonical form, as the other inputs are");
		all = xrealloc(all, (n + ws->files[f].n) * sizeof(*all));
		for (size_t i = 0; i < ws->files[f].n; i++)
			all[n++] = &ws->files[f].w[i];
	}
	qsort(all, n, sizeof(*all), by_trace_seq);
	*nruns = 0;
	for (size_t i = 0; i < n; i++) {
		struct run_windows *r = *nruns ? &runs[*nruns - 1] : NULL;

		if (!r || strcmp(r->name, all[i]->trace)) {
			runs = xrealloc(runs, (*nruns + 1) * sizeof(*runs));
			r = &runs[(*nruns)++];
			*r = (struct run_windows){ .name = all[i]->trace,
						   .path = all[i]->file,
						   .initial = all[i]->pre,
						   .w = &all[i] };
		}
		if (all[i]->seq != (long)r->n + 1)
			die_at(EXIT_BAD_INPUT, all[i]->file, all[i]->line,
			       "trace %s: seq %ld where %zu was due (a window "
			       "missing or repeated)", r->name, all[i]->seq,
			       r->n + 1);
		r->n++;
	}
	return runs;
}

/*
 * Canonical IN (a file, a directory of them, a corpus) to OUT, a
 * directory: OUT/TRACE.ndjson (.itf.json) for each trace.  Every run is
 * rendered before the first is written.
 */
static void convert_canonical(const struct window_set *ws,
			      struct output_format fmt, const char *out)
{
	size_t nruns, *len;
	struct run_windows *runs = canonical_runs(ws, &nruns);
	char **buf;

	if (fmt.form == FORM_CANONICAL)
		die(EXIT_USAGE, "the input is in the canonical form already");
	if (!nruns)
		die_at(EXIT_BAD_INPUT, ws->files[0].path, 0, "no windows");
	buf = xcalloc(nruns, sizeof(*buf));
	len = xcalloc(nruns, sizeof(*len));
	for (size_t i = 0; i < nruns; i++) {
		struct itf_head head = {
			.system = ws->system ? ws->system->name : NULL,
			.source = runs[i].path, .run = runs[i].name,
			.types = ws->system ? ws->system->itf : NULL,
		};

		buf[i] = render(&runs[i], fmt, &head, &len[i]);
	}
	mkdir_p(out);
	for (size_t i = 0; i < nruns; i++) {
		char *path = xasprintf("%s/%s%s", out, runs[i].name,
				       window_file_ext(fmt.form));

		put(path, buf[i], len[i]);
		free(path);
		free(buf[i]);
	}
	free(buf);
	free(len);
	free((void *)runs[0].w);
	free(runs);
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
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
	if (strcmp(out, "-") && !is_dir(argv[optind]))
		check_output_file(out, argv + optind, 1, force);
	if (system)
		system_lookup(system);
	window_set_add(&ws, argv[optind]);
	/* IN must be the system's, in every form; ITF and canonical need one */
	if (system || fmt.form == FORM_ITF || fmt.form == FORM_CANONICAL ||
	    ws.files[0].form == FORM_CANONICAL)
		window_set_system(&ws, system);
	/* only ITF and canonical write what the system declares of its values */
	if (ws.files[0].form == FORM_CANONICAL)
		convert_canonical(&ws, fmt, out);
	else if (ws.n == 1)
		convert(&ws.files[0], fmt.form == FORM_ITF ||
			fmt.form == FORM_CANONICAL ? ws.system : NULL, fmt, out);
	else
		die(EXIT_USAGE, "%s holds %zu window files: convert one at a "
		    "time (a directory only in the canonical form)",
		    argv[optind], ws.n);
	window_set_free(&ws);
	return EXIT_OK;
}
