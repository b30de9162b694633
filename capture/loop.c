// SPDX-License-Identifier: MIT
/*
 * The live-capture loop's engine (capture/live.h, docs/architecture.md):
 * a parsed selection in, one corpus out -- scenario selection, the modes
 * that run instead, the driver's run, the fold of each run, the commit.
 * The CLI (capture/cli/live.c) only parses argv into the selection.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "corpus.h"
#include "die.h"
#include "fold.h"
#include "home.h"
#include "json.h"
#include "live.h"
#include "options.h"
#include "proc.h"
#include "system-corpus.h"
#include "system.h"

int live_misuse(struct cap_err *err)
{
	return cap_fail(err, EXIT_USAGE, "%s", "");
}

static void select_scenarios(struct live_capture *lc)
{
	const struct live_system *ls = lc->live;
	const struct live_selection *sel = &lc->sel;
	char *dir;

	if (!ls->select || !ls->select(lc)) {
		dir = sel->from ? xstrdup(sel->from) : sel->scenarios ?
		      xstrdup(sel->scenarios) :
		      xasprintf("%s/%s", capture_home(), lc->sys->scenarios);
		lc->sc = scenario_select(lc->sys->folder->name, dir,
					 sel->scenarios || sel->from, sel->scenario,
					 &lc->n);
		free(dir);
	}
	if (ls->prepare)
		ls->prepare(lc);
}

/* The selection's files and data go (the selection stays). */
static void release(struct live_capture *lc)
{
	if (lc->data && lc->live->release)
		lc->live->release(lc);
	scenario_files_free(lc->sc, lc->n);
	lc->data = NULL;
	lc->sc = NULL;
	lc->n = 0;
	cJSON_Delete(lc->environment);
	lc->environment = NULL;
}

/* The modes that run instead of a capture: LIVE_CAPTURE if none did. */
static int instead(struct live_capture *lc, struct cap_err *err)
{
	int rc = LIVE_CAPTURE;

	if (lc->driver->instead)
		rc = lc->driver->instead(lc, err);
	if (rc == LIVE_CAPTURE && lc->live->instead)
		rc = lc->live->instead(lc, err);
	return rc;
}

static char *output_dir(const struct live_capture *lc)
{
	const struct live_selection *sel = &lc->sel;

	if (sel->out.dir)
		return xstrdup(sel->out.dir);
	if (sel->default_dir || lc->live->default_dir)
		return xstrdup(sel->default_dir ? sel->default_dir : lc->live->default_dir);
	return xasprintf("corpus/%s-%s", lc->sys->folder->name, sel->scenario);
}

static void raw_paths(struct live_capture *lc)
{
	char *raw_dir = corpus_path(lc->corpus, "raw");

	mkdir_p(raw_dir);
	lc->raw = xcalloc(lc->n, sizeof(*lc->raw));
	for (size_t i = 0; i < lc->n; i++)
		lc->raw[i] = xasprintf("%s/%s.%s", raw_dir, lc->sc[i].run,
				       lc->live->raw_ext);
	free(raw_dir);
}

/*
 * Scenario files from --scenarios DIR (not the installation's): the corpus
 * keeps a copy of each as scenarios/RUN, what verify reruns.
 */
static void keep_scenarios(const struct live_capture *lc)
{
	char *dir = corpus_path(lc->corpus, "scenarios");

	mkdir_p(dir);
	for (size_t i = 0; i < lc->n; i++) {
		char *dst = xasprintf("%s/%s", dir, lc->sc[i].run);

		if (copy_file(lc->sc[i].path, dst))
			die(EXIT_CAPTURE_FAILED, "%s: cannot copy into the corpus",
			    lc->sc[i].path);
		free(dst);
	}
	free(dir);
}

/*
 * The command line of a selection given as data, as the CLI would take
 * it, into @argv (14 elements): SYSTEM [--scenarios DIR] --scenario NAME
 * --DRIVER_OPTION DRIVER and the output options given, -o DIR last (the
 * element command_argv() leaves out: the very string the CLI parsed).
 * Returns the one element it allocates.
 */
static char *selection_argv(const struct live_capture *lc, char **argv, int *argc)
{
	const struct output_options *out = &lc->sel.out;
	char *driver_option = xasprintf("--%s", lc->sys->live->driver_row.long_name);
	int n = 0;

	argv[n++] = (char *)lc->sys->folder->name;
	if (lc->sel.scenarios) {
		argv[n++] = "--scenarios";
		argv[n++] = (char *)lc->sel.scenarios;
	}
	argv[n++] = "--scenario";
	argv[n++] = (char *)lc->sel.scenario;
	argv[n++] = driver_option;
	argv[n++] = (char *)lc->driver->name;
	if (out->form >= 0) {
		argv[n++] = "--form";
		argv[n++] = (char *)window_form_names[out->form];
	}
	if (out->style >= 0) {
		argv[n++] = "--json";
		argv[n++] = (char *)json_style_names[out->style];
	}
	if (out->dir) {
		argv[n++] = "-o";
		argv[n++] = (char *)out->dir;
	}
	*argc = n;
	return driver_option;
}

static struct corpus *begin(const struct live_capture *lc, const char *dir)
{
	struct corpus *c;
	char *argv[14], *own;
	int argc;

	if (lc->sel.argv)
		return system_corpus_begin(dir, lc->folder, lc->sel.argc,
					   lc->sel.argv);
	own = selection_argv(lc, argv, &argc);
	c = system_corpus_begin(dir, lc->folder, argc, argv);
	free(own);
	return c;
}

/* Fold run @i with its step map, if any, which then goes. */
static void fold_run(struct live_capture *lc, size_t i,
		     struct output_format fmt, cJSON *runs)
{
	const char *map = lc->maps ? lc->maps[i] : NULL;

	progress("folding raw/%s.%s", lc->sc[i].run, lc->live->raw_ext);
	fold_input_mapped(lc->folder, lc->corpus, lc->sc[i].run, lc->raw[i],
			  fmt, runs, map);
	if (map) {
		unlink(map);
		free(lc->maps[i]);
	}
	free(lc->raw[i]);
}

/*
 * One corpus of every scenario: begun, the runs captured, described and
 * folded, finished, committed (docs/live-loop.md, "The loop").
 */
static void capture(struct live_capture *lc)
{
	const struct live_system *ls = lc->live;
	struct output_format fmt = output_format_for(&lc->sel.out, lc->folder);
	char *dir = output_dir(lc);
	cJSON *runs = json_arr();

	lc->corpus = begin(lc, dir);
	raw_paths(lc);
	if (lc->sel.scenarios || lc->sel.from)
		keep_scenarios(lc);
	lc->driver->run(lc);
	if (ls->describe)
		ls->describe(lc, corpus_manifest(lc->corpus));
	if (lc->driver->describe)
		lc->driver->describe(lc);
	if (lc->environment)
		json_add(corpus_manifest(lc->corpus), "environment", lc->environment);
	lc->environment = NULL;
	for (size_t i = 0; i < lc->n; i++)
		fold_run(lc, i, fmt, runs);
	if (ls->finish) {
		/* In memory: reachable when finish() dies (LeakSanitizer). */
		cJSON *volatile counts = run_counts(runs);

		ls->finish(lc, counts);
		cJSON_Delete(counts);
	}
	system_corpus_commit(lc->corpus, runs, dir);
	free(lc->raw);
	free(lc->maps);
	free(dir);
}

int live_capture_run(struct live_capture *lc)
{
	if (!lc->environment)
		lc->environment = json_obj();
	if (!lc->sc)
		select_scenarios(lc);
	if (lc->driver->prepare)
		lc->driver->prepare(lc);
	capture(lc);
	release(lc);
	return EXIT_OK;
}

/*
 * An output is never an input: -o may not be, hold or lie inside a corpus
 * a mode reads (--merge's) or the --scenarios directory, which the swap
 * at the commit would remove with the old corpus.  Before any work.
 */
static void refuse_output_inputs(const struct live_capture *lc)
{
	static char out[PATH_MAX];
	char *scenarios[] = { (char *)lc->sel.scenarios }, *dir;

	/* no input to compare, or no output named yet (a misuse, told later) */
	if ((!lc->sel.noperands && !lc->sel.scenarios) ||
	    (!lc->sel.out.dir && !lc->live->default_dir && !lc->sel.scenario))
		return;
	dir = output_dir(lc);
	/* a copy that a refusal (which dies) leaves nothing allocated of */
	snprintf(out, sizeof(out), "%s", dir);
	free(dir);
	refuse_output_over_inputs(out, lc->sel.operands, lc->sel.noperands, 1);
	refuse_output_over_inputs(out, scenarios, lc->sel.scenarios ? 1 : 0, 1);
}

int live_run(struct live_capture *lc, struct cap_err *err)
{
	int rc;

	refuse_output_inputs(lc);
	lc->environment = json_obj();
	if (lc->sel.scenario)
		select_scenarios(lc);
	rc = instead(lc, err);
	if (rc == LIVE_CAPTURE)
		rc = !lc->sel.scenario || lc->sel.noperands ? live_misuse(err) :
		     live_capture_run(lc);
	release(lc);
	return rc;
}
