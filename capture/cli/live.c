// SPDX-License-Identifier: MIT
/*
 * capture SYSTEM: argv parsed into the selection the loop's engine runs
 * (capture/loop.c, capture/live.h): the loop's options, the driver
 * choice, the system's and every driver's, each into its own context.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "../die.h"
#include "../err.h"
#include "../live.h"
#include "../options.h"
#include "../system.h"

enum { O_SCENARIOS = 0x800 };

struct live_args {
	const char *driver;
	const struct live_driver *misplaced;  /* owns an option given */
	const char *misplaced_option;
	struct output_options out;
	void **driver_opts;                   /* drivers[i]'s options */
	struct opt *own;                      /* the system's rows, or NULL */
	struct opt **driver_rows;             /* drivers[i]'s, or NULL */
	struct opt *drivers;                  /* an include of each */
	char *dir_help;
	struct opt_command cmd;               /* all of them */
};

static const struct opt no_rows[] = { OPT_END() };

/*
 * The command `capture SYSTEM` parses: the loop's rows (filling @lc and
 * @a), the system's (lc->opts), each driver's (its context), the output
 * options, -h.
 */
static void rows_build(struct live_capture *lc, struct live_args *a, size_t nd)
{
	const struct live_system *ls = lc->live;
	struct opt driver = ls->driver_row;
	size_t k = 0;

	a->own = ls->table ? ls->table(lc->opts) : NULL;
	a->driver_rows = xcalloc(nd, sizeof(*a->driver_rows));
	a->drivers = xcalloc(nd + 1, sizeof(*a->drivers));
	for (size_t i = 0; i < nd; i++) {
		if (!ls->drivers[i]->table)
			continue;
		a->driver_rows[i] = ls->drivers[i]->table(a->driver_opts[i]);
		a->drivers[k++] = (struct opt)OPT_INCLUDE(a->driver_rows[i]);
	}
	driver.value = &a->driver;
	a->dir_help = xasprintf(OUTPUT_DIR_HELP("%s"), ls->dir_help);
	a->cmd = (struct opt_command){ ls->usage, opt_table_dup((const struct opt[]){
		OPT_STRING('s', "scenario", &lc->scenario, "NAME", ls->scenario_help),
		OPT_STRING(0, "scenarios", &lc->scenarios, "DIR", ls->scenarios_help),
		driver,
		OPT_INCLUDE(a->own ? a->own : no_rows),
		OPT_INCLUDE(a->drivers),
		OPT_OUTPUT_DIR(&a->out, a->dir_help),
		OPT_OUTPUT_FORM(&a->out, OUTPUT_FORM_HELP),
		OPT_OUTPUT_JSON(&a->out),
		OPT_HELP(),
		OPT_END(),
	}), ls->epilog, 0 };
}

static void rows_free(struct live_args *a, size_t nd)
{
	for (size_t i = 0; i < nd; i++)
		free(a->driver_rows[i]);
	free(a->driver_rows);
	free(a->drivers);
	free(a->own);
	free(a->dir_help);
	free((struct opt *)a->cmd.table);
}

/* The driver that owns the last of its options given, into @a. */
static void driver_given(const struct live_system *ls, struct live_args *a, size_t nd)
{
	int last = 0;

	for (size_t i = 0; i < nd; i++)
		for (const struct opt *r = a->driver_rows[i];
		     r && r->kind != OPT_KIND_END; r++)
			if (opt_given(r) > last) {
				last = opt_given(r);
				a->misplaced = ls->drivers[i];
				a->misplaced_option = r->long_name;
			}
}

static void parse_rows(struct live_capture *lc, int argc, char **argv,
		       struct live_args *a, size_t nd)
{
	int first;

	rows_build(lc, a, nd);
	first = parse_options(&a->cmd, argc, argv);
	lc->operands = argv + first;
	lc->noperands = argc - first;
	driver_given(lc->live, a, nd);
}

/* The name of the option choosing @ls's driver. */
static const char *driver_option_name(const struct live_system *ls)
{
	return ls->table ? ls->driver_row.long_name : ls->driver_option.name;
}

static const struct option loop_options[] = {
	{ "scenario", required_argument, NULL, 's' },
	{ "scenarios", required_argument, NULL, O_SCENARIOS },
	{ "help", no_argument, NULL, 'h' },
	OUTPUT_LONG_OPTIONS,
	{ 0 }
};

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

/* A context of @o: its size, a copy of its init (capture/live.h). */
static void *opts_new(const struct live_opts *o)
{
	void *p = xcalloc(1, o->size ? o->size : 1);

	if (o->init)
		memcpy(p, o->init, o->size);
	return p;
}

/* Hand @opt to the system or the driver whose table has it. */
static int dispatch(const struct live_capture *lc, int opt, const char *arg,
		    struct live_args *a)
{
	const struct live_system *ls = lc->live;
	const struct option *o;

	if (option_of(ls->options, opt)) {
		ls->option(lc->opts, opt, arg);
		return 1;
	}
	for (size_t i = 0; ls->drivers[i]; i++) {
		o = option_of(ls->drivers[i]->options, opt);
		if (o) {
			ls->drivers[i]->option(a->driver_opts[i], opt, arg);
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
	const struct live_system *ls = lc->live;
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
		else if (!dispatch(lc, opt, optarg, a) &&
			 !output_option(opt, optarg, &a->out))
			usage(ls->usage, 0);
	}
	lc->operands = argv + optind;
	lc->noperands = argc - optind;
	free(shortopts);
	free(all);
}

/* --DRIVER_OPTION NAME, default the first; an option of another dies. */
static size_t choose_driver(const struct live_system *ls,
			    const struct live_args *a)
{
	size_t d = SIZE_MAX;
	char *known = xstrdup("");

	for (size_t i = 0; ls->drivers[i]; i++) {
		if (d == SIZE_MAX && (!a->driver || !strcmp(a->driver, ls->drivers[i]->name)))
			d = i;
		known = str_append(known, i ? ", " : "", ls->drivers[i]->name);
	}
	if (d == SIZE_MAX)
		die(EXIT_USAGE, "--%s: no driver '%s' (known: %s)",
		    driver_option_name(ls), a->driver, known);
	free(known);
	if (a->misplaced && a->misplaced != ls->drivers[d])
		die(EXIT_USAGE, "--%s needs --%s %s", a->misplaced_option,
		    driver_option_name(ls), a->misplaced->name);
	return d;
}

int cmd_live(const struct system *sys, int argc, char **argv)
{
	const struct live_system *ls = sys->live;
	struct live_args a = { .out = OUTPUT_OPTIONS_INIT };
	struct live_capture lc = {
		.sys = sys, .live = ls, .folder = sys->folder, .out = &a.out,
		.argc = argc, .argv = argv, .opts = opts_new(&ls->opts),
	};
	struct cap_err err;
	size_t nd = 0, d;
	int rc;

	while (ls->drivers[nd])
		nd++;
	a.driver_opts = xcalloc(nd, sizeof(*a.driver_opts));
	for (size_t i = 0; i < nd; i++)
		a.driver_opts[i] = opts_new(&ls->drivers[i]->opts);
	if (ls->table)
		parse_rows(&lc, argc, argv, &a, nd);
	else
		parse(&lc, argc, argv, &a);
	d = choose_driver(ls, &a);
	lc.driver = ls->drivers[d];
	lc.driver_opts = a.driver_opts[d];
	lc.driver_option = a.misplaced_option;
	rc = live_run(&lc, &err);
	if (rc < 0 && err.code == EXIT_USAGE && !*cap_err_text(&err) && ls->table)
		opt_usage(&a.cmd, 0);
	if (rc < 0 && err.code == EXIT_USAGE && !*cap_err_text(&err))
		usage(ls->usage, 0);
	if (rc < 0)
		die_err(&err);
	if (ls->table)
		rows_free(&a, nd);
	for (size_t i = 0; i < nd; i++)
		free(a.driver_opts[i]);
	free(a.driver_opts);
	free(lc.opts);
	return rc;
}
