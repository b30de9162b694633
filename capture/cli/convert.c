// SPDX-License-Identifier: MIT
/* capture convert IN OUT: a window file from one form and JSON style to another. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../fold.h"
#include "command.h"
#include "../die.h"
#include "../options.h"
#include "../proc.h"
#include "../projection.h"
#include "../window-read.h"

static const char convert_usage[] =
	"usage: capture convert [options] IN OUT\n\n"
	"Rewrite the window file IN (event, stream or canonical form, detected;\n"
	"ITF if named *.itf.json) as OUT (\"-\": stdout) in the chosen form and\n"
	"JSON style, with the same writer fold uses, so both agree byte for byte.\n"
	"OUT is written whole or not at all.  Canonical IN (a file, a directory\n"
	"of SYSTEM/ACTION.ndjson files or a corpus) is sorted back into its\n"
	"traces: OUT is then a directory (made if missing; never \"-\", a\n"
	"symbolic link, an input or inside one), OUT/TRACE.ndjson each (a\n"
	"trace_id that is no plain file name is refused), all written or none;\n"
	"canonical OUT is one file, every action's\n"
	"windows in it.  Every window's pre_state must be\n"
	"the previous window's post_state (the writer carries it over, in every\n"
	"form).  ITF output names the run's source and run as IN's ITF #meta\n"
	"does, else as IN and its name, and takes the system's value types from\n"
	"--system or the action names.\n\n"
	"OUT that exists (OUT/TRACE.ndjson) is replaced only with --force, and\n"
	"never when it is IN;\n"
	"OUT named *.itf.json is written in ITF unless --form says otherwise,\n"
	"and a --form its name contradicts (event or stream as *.itf.json, ITF\n"
	"as *.ndjson) is refused: capture reads the form from the name.\n";

#define CANONICAL_IN "canonical input"

/* The windows of one run, in order (a canonical file's are a trace's). */
struct run_windows {
	const char *name;      /* the trace (canonical input), else NULL */
	const char *path;      /* where its first window is, for messages */
	const cJSON *initial;
	const struct window **w;
	size_t n;
};

/*
 * What a conversion holds until it has written: its failure cleanup frees
 * it, so that a refused input dies with capture's own exit code, nothing
 * left for LeakSanitizer.
 */
struct conversion {
	const struct window **all;   /* every window, run by run */
	struct run_windows *runs;
	size_t nruns;
	struct out_file *out;        /* each run rendered */
	char *stem;
	int cleanup;
};

static void conversion_free(void *arg)
{
	struct conversion *cv = arg;

	for (size_t i = 0; cv->out && i < cv->nruns; i++) {
		free(cv->out[i].name);
		free(cv->out[i].data);
	}
	free(cv->out);
	free(cv->all);
	free(cv->runs);
	free(cv->stem);
	free(cv);
}

static struct conversion *conversion_new(void)
{
	struct conversion *cv = xcalloc(1, sizeof(*cv));

	cv->cleanup = on_failure(conversion_free, cv);
	return cv;
}

static void conversion_done(struct conversion *cv)
{
	cancel_on_failure(cv->cleanup);
	conversion_free(cv);
}

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

/* @r (its windows chained) in @fmt, with the writer fold uses, into @out. */
static void render(const struct run_windows *r, struct output_format fmt,
		   const struct itf_head *head, struct out_file *out)
{
	struct window_writer *w;
	cJSON *counts = json_obj();
	FILE *f = open_memstream(&out->data, &out->len);

	if (!f)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	w = windows_open_file(f, r->path, fmt, r->initial, head);
	for (size_t i = 0; i < r->n; i++)
		windows_add(w, r->w[i]->action, json_dup(r->w[i]->data),
			    json_dup(r->w[i]->post));
	windows_close(w, counts);
	if (ferror(f) | fclose(f))
		die(EXIT_CAPTURE_FAILED, "out of memory");
	cJSON_Delete(counts);
}

static void put(const char *out, const struct out_file *o)
{
	if (!strcmp(out, "-")) {
		if (fwrite(o->data, 1, o->len, stdout) != o->len || fflush(stdout))
			die(EXIT_CAPTURE_FAILED, "write error on standard "
			    "output: %s", strerror(errno));
	} else {
		write_file_atomic(out, o->data, o->len);
	}
}

static void convert(const struct window_file *wf, const struct folder *sys,
		    struct output_format fmt, const char *out)
{
	struct conversion *cv = conversion_new();
	struct itf_head head = { 0 };

	/* an empty file was refused: the initial state is there */
	cv->all = xcalloc(wf->n + 1, sizeof(*cv->all));
	for (size_t i = 0; i < wf->n; i++)
		cv->all[i] = &wf->w[i];
	cv->runs = xcalloc(1, sizeof(*cv->runs));
	cv->runs[0] = (struct run_windows){ .path = wf->path, .w = cv->all,
					    .initial = wf->initial, .n = wf->n };
	cv->out = xcalloc(1, sizeof(*cv->out));
	cv->nruns = 1;
	check_chained(&cv->runs[0]);
	if (sys)
		head = itf_head_of(wf, sys, &cv->stem);
	render(&cv->runs[0], fmt, &head, &cv->out[0]);
	put(out, &cv->out[0]);
	conversion_done(cv);
}

/* A new run in @cv from window @w: a trace whose id names its file in @out. */
static struct run_windows *run_begin(struct conversion *cv,
				     const struct window **w, const char *out)
{
	const char *why = file_name_refused((*w)->trace);
	struct run_windows *r;

	if (why)
		die_at(EXIT_BAD_INPUT, (*w)->file, (*w)->line, "trace_id '%s' "
		       "cannot name a file in %s: %s", (*w)->trace, out, why);
	cv->runs = xrealloc(cv->runs, (cv->nruns + 1) * sizeof(*cv->runs));
	r = &cv->runs[cv->nruns++];
	*r = (struct run_windows){ .name = (*w)->trace, .path = (*w)->file,
				   .initial = (*w)->pre, .w = w };
	return r;
}

/*
 * Every window of the canonical files of @ws, sorted into runs (into
 * @cv), each of seq 1, 2, ... with no gap or repeat: what fold wrote,
 * split by action.  Each run's file in @out is named after its trace.
 */
static void canonical_runs(const struct window_set *ws, struct conversion *cv,
			   const char *out)
{
	size_t n = 0;

	for (size_t f = 0; f < ws->n; f++) {
		if (ws->files[f].form != FORM_CANONICAL)
			die_at(EXIT_BAD_INPUT, ws->files[f].path, 1, "not in "
			       "the canonical form, as the other inputs are");
		n += ws->files[f].n;
	}
	cv->all = xcalloc(n + 1, sizeof(*cv->all));
	n = 0;
	for (size_t f = 0; f < ws->n; f++)
		for (size_t i = 0; i < ws->files[f].n; i++)
			cv->all[n++] = &ws->files[f].w[i];
	qsort(cv->all, n, sizeof(*cv->all), window_trace_order);
	for (size_t i = 0; i < n; i++) {
		struct run_windows *r = cv->nruns ? &cv->runs[cv->nruns - 1] : NULL;

		if (!r || strcmp(r->name, cv->all[i]->trace))
			r = run_begin(cv, &cv->all[i], out);
		if (cv->all[i]->seq != (long)r->n + 1)
			die_at(EXIT_BAD_INPUT, cv->all[i]->file, cv->all[i]->line,
			       "trace %s: seq %ld where %zu was due (a window "
			       "missing or repeated)", r->name, cv->all[i]->seq,
			       r->n + 1);
		r->n++;
	}
}

/*
 * Canonical IN (a file, a directory of them, a corpus) to OUT, a
 * directory: OUT/TRACE.ndjson (.itf.json) for each trace.  Every run is
 * checked and rendered before the first is written, and all are written
 * or none (write_files_atomic()).
 */
static void convert_canonical(const struct window_set *ws,
			      struct output_format fmt, const char *out,
			      char *const inputs[], int replace)
{
	struct conversion *cv = conversion_new();

	canonical_runs(ws, cv, out);
	if (!cv->nruns)
		die_at(EXIT_BAD_INPUT, ws->files[0].path, 0, "no windows");
	for (size_t i = 0; i < cv->nruns; i++)
		check_chained(&cv->runs[i]);
	cv->out = xcalloc(cv->nruns, sizeof(*cv->out));
	for (size_t i = 0; i < cv->nruns; i++) {
		struct itf_head head = {
			.system = ws->system ? ws->system->name : NULL,
			.source = cv->runs[i].path, .run = cv->runs[i].name,
			.types = ws->system ? ws->system->itf : NULL,
		};

		cv->out[i].name = xasprintf("%s%s", cv->runs[i].name,
					    window_file_ext(fmt.form));
		render(&cv->runs[i], fmt, &head, &cv->out[i]);
	}
	write_files_atomic(out, cv->out, cv->nruns, inputs, 1, replace);
	conversion_done(cv);
}

/* Is @path a directory (@follow: or a symbolic link to one)? */
static int is_dir(const char *path, int follow)
{
	struct stat st;

	return !(follow ? stat : lstat)(path, &st) && S_ISDIR(st.st_mode);
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
		    out, itf_name ? "ITF" : "event or stream",
		    window_form_name((enum window_form)o->form));
	return (enum window_form)o->form;
}

int cmd_convert(int argc, char **argv)
{
	struct output_options o = OUTPUT_OPTIONS_INIT;
	const char *system = NULL, *in, *out;
	int force = 0, canonical;
	const struct opt options[] = {
		OPT_OUTPUT_FORM(&o, "event (default; itf for OUT named *.itf.json),\n"
				"stream, itf, or canonical"),
		OPT_OUTPUT_JSON(&o),
		OPT_STRING(0, "system", &system, "NAME", "the system (ITF output: if "
			   "the action names do\nnot tell); IN must hold its windows"),
		OPT_FLAG('f', "force", &force, "replace OUT if it exists"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { convert_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);
	struct output_format fmt;
	struct window_set ws = { 0 };

	if (argc - first != 2)
		opt_usage(&cmd, 0);
	in = argv[first];
	out = argv[first + 1];
	o.form = out_form(&o, out);
	fmt = output_format_for(&o, NULL);
	/*
	 * OUT checked before IN is read: a directory IN is canonical, and
	 * converts into a directory; a file IN into a file, unless it turns
	 * out canonical (then OUT, a directory, is checked once it is read).
	 */
	if (is_dir(in, 1))
		check_output_dir_of_files(out, argv + first, 1, CANONICAL_IN);
	else if (strcmp(out, "-") && !is_dir(out, 0))
		check_output_file(out, argv + first, 1, force);
	if (system)
		system_lookup(system);
	window_set_add(&ws, in);
	canonical = ws.files[0].form == FORM_CANONICAL;
	if (canonical && fmt.form == FORM_CANONICAL)
		die(EXIT_USAGE, "the input is in the canonical form already");
	if (canonical)
		check_output_dir_of_files(out, argv + first, 1, CANONICAL_IN);
	else if (strcmp(out, "-"))
		check_output_file(out, argv + first, 1, force);
	/* IN must be the system's, in every form; ITF and canonical need one */
	if (system || fmt.form == FORM_ITF || fmt.form == FORM_CANONICAL ||
	    canonical)
		window_set_system(&ws, system);
	/* only ITF and canonical write what the system declares of its values */
	if (canonical)
		convert_canonical(&ws, fmt, out, argv + first, force);
	else if (ws.n == 1)
		convert(&ws.files[0], fmt.form == FORM_ITF ||
			fmt.form == FORM_CANONICAL ? ws.system : NULL, fmt, out);
	else
		die(EXIT_USAGE, "%s holds %zu window files: convert one at a "
		    "time (a directory only in the canonical form)",
		    in, ws.n);
	window_set_free(&ws);
	return EXIT_OK;
}
