// SPDX-License-Identifier: MIT
/*
 * capture SYSTEM: the one live-capture loop every live system of the table
 * runs through (capture/live.h, docs/architecture.md): options, scenario
 * selection, the driver's run, the fold of each run, one corpus.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../fold.h"
#include "command.h"
#include "../corpus.h"
#include "../die.h"
#include "../home.h"
#include "../json.h"
#include "../live.h"
#include "../options.h"
#include "../proc.h"
#include "../system-corpus.h"
#include "../system.h"

enum { O_SCENARIOS = 0x800 };

struct live_args {
	const char *driver;
	const char *from;   /* live_capture_from()'s directory, or NULL */
	const struct live_driver *misplaced;  /* owns an option given */
	const char *misplaced_option;
	struct output_options out;
};

static const struct option loop_options[] = {
	{ "scenario", required_argument, NULL, 's' },
	{ "scenarios", required_argument, NULL, O_SCENARIOS },
	{ "help", no_argument, NULL, 'h' },
	OUTPUT_LONG_OPTIONS,
	{ 0 }
};

static const struct live_system *live_of(const struct live_capture *lc)
{
	return lc->sys->live;
}

_Noreturn void live_usage(const struct live_capture *lc)
{
	usage(live_of(lc)->usage, 0);
}

static size_t options_len(const struct option *o)
{
	size_t n = 0;

	while (o && o[n].name)
		n++;
	return n;
}

static void options_add(struct option **all, size_t *n, const struct option *o)
{
	size_t k = options_len(o);

	*all = xrealloc(*all, (*n + k + 1) * sizeof(**all));
	if (k)
		memcpy(*all + *n, o, k * sizeof(**all));
	*n += k;
	memset(*all + *n, 0, sizeof(**all));
}

/* The loop's options, the driver choice, the system's, every driver's. */
static struct option *all_options(const struct live_system *ls)
{
	struct option *all = NULL;
	size_t n = 0;

	options_add(&all, &n, loop_options);
	options_add(&all, &n, (struct option[]){ ls->driver_option, { 0 } });
	options_add(&all, &n, ls->options);
	for (size_t i = 0; ls->drivers[i]; i++)
		options_add(&all, &n, ls->drivers[i]->options);
	return all;
}

/* The entry of @o for option value @opt, or NULL. */
static const struct option *option_of(const struct option *o, int opt)
{
	for (size_t i = 0; o && o[i].name; i++)
		if (o[i].val == opt)
			return &o[i];
	return NULL;
}

/* Hand @opt to the system or the driver whose table has it. */
static int dispatch(const struct live_system *ls, int opt, const char *arg,
		    struct live_args *a)
{
	const struct option *o;

	if (option_of(ls->options, opt)) {
		ls->option(opt, arg);
		return 1;
	}
	for (size_t i = 0; ls->drivers[i]; i++) {
		o = option_of(ls->drivers[i]->options, opt);
		if (o) {
			ls->drivers[i]->option(opt, arg);
			a->misplaced = ls->drivers[i];
			a->misplaced_option = o->name;
			return 1;
		}
	}
	return 0;
}

static void parse(struct live_capture *lc, int argc, char **argv,
		  struct live_args *a)
{
	const struct live_system *ls = live_of(lc);
	struct option *all = all_options(ls);
	char *shortopts = xasprintf("s:o:h%s", ls->shortopts ? ls->shortopts : "");
	int opt;

	option_unrecorded_clear();
	while ((opt = getopt_long(argc, argv, shortopts, all, NULL)) != -1) {
		if (opt == 'h')
			usage(ls->usage, 1);
		else if (opt == 's')
			lc->scenario = optarg;
		else if (opt == O_SCENARIOS)
			lc->scenarios = optarg;
		else if (opt == ls->driver_option.val)
			a->driver = optarg;
		else if (!dispatch(ls, opt, optarg, a) &&
			 !output_option(opt, optarg, &a->out))
			live_usage(lc);
	}
	lc->operands = argv + optind;
	lc->noperands = argc - optind;
	free(shortopts);
	free(all);
}

/* --DRIVER_OPTION NAME, default the first; an option of another dies. */
static const struct live_driver *choose_driver(const struct live_system *ls,
					       const struct live_args *a)
{
	const struct live_driver *d = NULL;
	char *known = xstrdup("");

	for (size_t i = 0; ls->drivers[i]; i++) {
		if (!a->driver || !strcmp(a->driver, ls->drivers[i]->name))
			d = d ? d : ls->drivers[i];
		known = str_append(known, i ? ", " : "", ls->drivers[i]->name);
	}
	if (!d)
		die(EXIT_USAGE, "--%s: no driver '%s' (known: %s)",
		    ls->driver_option.name, a->driver, known);
	free(known);
	if (a->misplaced && a->misplaced != d)
		die(EXIT_USAGE, "--%s needs --%s %s", a->misplaced_option,
		    ls->driver_option.name, a->misplaced->name);
	return d;
}

static void select_scenarios(struct live_capture *lc, const struct live_args *a)
{
	const struct live_system *ls = live_of(lc);
	char *dir;

	if (!ls->select || !ls->select(lc)) {
		dir = a->from ? xstrdup(a->from) : lc->scenarios ? xstrdup(lc->scenarios) :
		      xasprintf("%s/%s", capture_home(), lc->sys->scenarios);
		lc->sc = scenario_select(lc->sys->folder->name, dir,
					 lc->scenarios || a->from, lc->scenario, &lc->n);
		free(dir);
	}
	if (live_of(lc)->prepare)
		live_of(lc)->prepare(lc);
}

/* The modes that run instead of a capture: -1 if none did. */
static int instead(struct live_capture *lc)
{
	int rc = -1;

	if (lc->driver->instead)
		rc = lc->driver->instead(lc);
	if (rc < 0 && live_of(lc)->instead)
		rc = live_of(lc)->instead(lc);
	return rc;
}

static char *output_dir(const struct live_capture *lc, const struct live_args *a)
{
	if (a->out.dir)
		return xstrdup(a->out.dir);
	if (live_of(lc)->default_dir)
		return xstrdup(live_of(lc)->default_dir);
	return xasprintf("corpus/%s-%s", lc->sys->folder->name, lc->scenario);
}

static void raw_paths(struct live_capture *lc)
{
	char *raw_dir = corpus_path(lc->corpus, "raw");

	mkdir_p(raw_dir);
	lc->raw = xcalloc(lc->n, sizeof(*lc->raw));
	for (size_t i = 0; i < lc->n; i++)
		lc->raw[i] = xasprintf("%s/%s.%s", raw_dir, lc->sc[i].run,
				       live_of(lc)->raw_ext);
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

/* Fold run @i with its step map, if any, which then goes. */
static void fold_run(struct live_capture *lc, size_t i,
		     struct output_format fmt, cJSON *runs)
{
	const char *map = lc->maps ? lc->maps[i] : NULL;

	progress("folding raw/%s.%s", lc->sc[i].run, live_of(lc)->raw_ext);
	fold_input_mapped(lc->folder, lc->corpus, lc->sc[i].run, lc->raw[i],
			  fmt, runs, map);
	if (map) {
		unlink(map);
		free(lc->maps[i]);
	}
	free(lc->raw[i]);
}

/* Steps 5 to 7 of docs/architecture.md: one corpus of every scenario. */
static void capture(struct live_capture *lc, const struct live_args *a,
		    int argc, char **argv)
{
	const struct folder *f = lc->folder;
	struct output_format fmt = output_format_for(&a->out, f);
	char *dir = output_dir(lc, a);
	cJSON *runs = json_arr();

	lc->corpus = system_corpus_begin(dir, f, argc, argv);
	raw_paths(lc);
	if (lc->scenarios || a->from)
		keep_scenarios(lc);
	lc->driver->run(lc);
	if (live_of(lc)->describe)
		live_of(lc)->describe(lc, corpus_manifest(lc->corpus));
	if (lc->driver->describe)
		lc->driver->describe(lc);
	json_add(corpus_manifest(lc->corpus), "environment", lc->environment);
	for (size_t i = 0; i < lc->n; i++)
		fold_run(lc, i, fmt, runs);
	if (live_of(lc)->finish) {
		/* In memory: reachable when finish() dies (LeakSanitizer). */
		cJSON *volatile counts = run_counts(runs);

		live_of(lc)->finish(lc, counts);
		cJSON_Delete(counts);
	}
	system_corpus_commit(lc->corpus, runs, dir);
	free(lc->raw);
	free(lc->maps);
	free(dir);
}

int cmd_live(const struct system *sys, int argc, char **argv)
{
	return live_capture_from(sys, argc, argv, NULL);
}

int live_capture_from(const struct system *sys, int argc, char **argv,
		      const char *from)
{
	struct live_args a = { .out = OUTPUT_OPTIONS_INIT, .from = from };
	struct live_capture lc = {
		.sys = sys, .folder = sys->folder, .environment = json_obj(),
		.out = &a.out, .argc = argc, .argv = argv,
	};
	int rc;

	parse(&lc, argc, argv, &a);
	lc.driver = choose_driver(sys->live, &a);
	lc.driver_option = a.misplaced_option;
	if (lc.scenario)
		select_scenarios(&lc, &a);
	rc = instead(&lc);
	if (rc < 0) {
		if (!lc.scenario || lc.noperands)
			live_usage(&lc);
		if (lc.driver->prepare)
			lc.driver->prepare(&lc);
		capture(&lc, &a, argc, argv);
		rc = EXIT_OK;
	} else {
		cJSON_Delete(lc.environment);
	}
	if (lc.data && sys->live->release)
		sys->live->release(&lc);
	scenario_files_free(lc.sc, lc.n);
	return rc;
}
