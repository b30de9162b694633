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

struct live_args {
	const char *driver;
	const struct live_driver *misplaced;  /* owns an option given */
	const char *misplaced_option;
	void **driver_opts;                   /* drivers[i]'s options */
	struct opt *own;                      /* the system's rows, or NULL */
	struct opt **driver_rows;             /* drivers[i]'s, or NULL */
	struct opt *drivers;                  /* an include of each */
	char *dir_help;
	struct opt_command cmd;               /* all of them */
};

static const struct opt no_rows[] = { OPT_END() };

/*
 * The command `capture SYSTEM` parses: the loop's rows (filling lc->sel
 * and @a's driver), the system's (lc->sel.opts), each driver's (its
 * context), the output options, -h.
 */
static void rows_build(struct live_capture *lc, struct live_args *a, size_t nd)
{
	const struct live_system *ls = lc->live;
	struct opt driver = ls->driver_row;
	size_t k = 0;

	a->own = ls->table ? ls->table(lc->sel.opts) : NULL;
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
		OPT_STRING('s', "scenario", &lc->sel.scenario, "NAME",
			   ls->scenario_help),
		OPT_STRING(0, "scenarios", &lc->sel.scenarios, "DIR",
			   ls->scenarios_help),
		driver,
		OPT_INCLUDE(a->own ? a->own : no_rows),
		OPT_INCLUDE(a->drivers),
		OPT_OUTPUT_DIR(&lc->sel.out, a->dir_help),
		OPT_OUTPUT_FORM(&lc->sel.out, OUTPUT_FORM_HELP),
		OPT_OUTPUT_JSON(&lc->sel.out),
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

static void parse(struct live_capture *lc, int argc, char **argv,
		  struct live_args *a, size_t nd)
{
	int first;

	rows_build(lc, a, nd);
	first = parse_options(&a->cmd, argc, argv);
	lc->sel.operands = argv + first;
	lc->sel.noperands = argc - first;
	driver_given(lc->live, a, nd);
}

/* A context of @o: its size, a copy of its init (capture/live.h). */
static void *opts_new(const struct live_opts *o)
{
	void *p = xcalloc(1, o->size ? o->size : 1);

	if (o->init)
		memcpy(p, o->init, o->size);
	return p;
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
		    ls->driver_row.long_name, a->driver, known);
	free(known);
	if (a->misplaced && a->misplaced != ls->drivers[d])
		die(EXIT_USAGE, "--%s needs --%s %s", a->misplaced_option,
		    ls->driver_row.long_name, a->misplaced->name);
	return d;
}

int cmd_live(const struct system *sys, int argc, char **argv)
{
	const struct live_system *ls = sys->live;
	struct live_args a = { 0 };
	struct live_capture lc = {
		.sys = sys, .live = ls, .folder = sys->folder,
		.sel = { .out = OUTPUT_OPTIONS_INIT, .argc = argc, .argv = argv,
			 .opts = opts_new(&ls->opts) },
	};
	struct cap_err err;
	size_t nd = 0, d;
	int rc;

	while (ls->drivers[nd])
		nd++;
	a.driver_opts = xcalloc(nd, sizeof(*a.driver_opts));
	for (size_t i = 0; i < nd; i++)
		a.driver_opts[i] = opts_new(&ls->drivers[i]->opts);
	parse(&lc, argc, argv, &a, nd);
	d = choose_driver(ls, &a);
	lc.driver = ls->drivers[d];
	lc.sel.driver_opts = a.driver_opts[d];
	lc.sel.driver_option = a.misplaced_option;
	rc = live_run(&lc, &err);
	if (rc < 0 && err.code == EXIT_USAGE && !*cap_err_text(&err))
		opt_usage(&a.cmd, 0);
	if (rc < 0)
		die_err(&err);
	rows_free(&a, nd);
	for (size_t i = 0; i < nd; i++)
		free(a.driver_opts[i]);
	free(a.driver_opts);
	free(lc.sel.opts);
	return rc;
}
