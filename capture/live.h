/* SPDX-License-Identifier: MIT */
/*
 * The live-capture interface (docs/architecture.md): what a live system
 * and its drivers give the loop's engine (capture/loop.c), and what the
 * engine gives them.  The CLI (capture/cli/live.c) parses `capture SYSTEM`
 * into a selection and hands it to live_run(); a mode (etcd's --live,
 * --explore) hands live_capture_run() a selection of its own, as data.
 * A NULL hook is skipped.  Hooks fail by dying with the README's exit
 * codes, except a usage error (live_misuse()), which they return.
 */
#ifndef CAPTURE_LIVE_H
#define CAPTURE_LIVE_H

#include <cJSON.h>
#include "err.h"
#include "options.h"
#include "parse-options.h"
#include "scenario.h"

struct corpus;
struct system;

/*
 * What a `capture SYSTEM` selects: what the CLI's option table filled
 * (capture/cli/live.c), or what a mode gives as data.
 */
struct live_selection {
	const char *scenario;        /* --scenario as given; NULL: none */
	const char *scenarios;       /* --scenarios DIR as given; NULL: none */
	struct output_options out;   /* -o, --form, --json */
	void *opts;                  /* the system's options (live_system.opts) */
	void *driver_opts;           /* the driver's (live_driver.opts) */
	const char *driver_option;   /* an option of a driver given (the
				      * last), or NULL */
	char **operands;             /* what follows the options: a mode's
				      * (a capture takes none) */
	int noperands;
	int argc;                    /* the command line the manifest records */
	char **argv;                 /* (argv[0]: SYSTEM); NULL: the engine
				      * spells the selection as one */
	const char *from;            /* a mode's: the files are taken from
				      * here, kept as if from --scenarios */
	const char *default_dir;     /* a mode's: -o's default over the
				      * system's; NULL */
};

/* One `capture SYSTEM` in progress: its selection, then its run's state. */
struct live_capture {
	const struct system *sys;
	const struct live_system *live;    /* the hooks the engine runs: sys->live
					    * or a mode's own (etcd's --live) */
	const struct live_driver *driver;  /* the one chosen */
	struct live_selection sel;
	const struct folder *folder; /* what folds the runs: the system's, or
				      * one refining it (set by prepare()) */
	struct scenario_file *sc;    /* the selected files, in NN order: the
				      * engine's to select (NULL) and free */
	size_t n;
	void *data;                  /* what live_system.prepare() made of them */
	struct corpus *corpus;       /* from the corpus's begin on */
	char **raw;                  /* raw[i]: DIR/raw/RUN.EXT of sc[i] */
	char **maps;                 /* maps[i]: the step map of sc[i]'s raw
				      * stream (struct fold_run), a file the
				      * engine removes; NULL: none */
	cJSON *environment;          /* provenance: the manifest's "environment";
				      * a describe() that places it sets NULL */
};

/*
 * An options context: @size bytes, a copy of @init (NULL: zeroes), which
 * the CLI allocates for the system and for each driver and hands to its
 * table(); the engine's hooks read it as lc->sel.opts, lc->sel.driver_opts.
 */
struct live_opts {
	size_t size;
	const void *init;
};

/*
 * The row of the option choosing the driver: its letter (0: none), long
 * name, its argument's name and its help; the loop sets what it fills.
 */
#define LIVE_DRIVER_ROW(SHORT, LONG, ARGH, HELP) { .kind = OPT_KIND_STRING, \
	.short_name = (SHORT), .long_name = (LONG), .argh = (ARGH), .help = (HELP) }

/* What instead() returns besides an exit code and -1 (failed: @err). */
enum { LIVE_CAPTURE = -2 };

/*
 * Options: table(@opts) gives the rows of the system's or the driver's
 * own options (capture/parse-options.h), filling the context @opts, as
 * a copy the CLI frees (opt_table_dup()); NULL: none.  The CLI puts them
 * in one table with the loop's (-s, --scenarios, the driver option, -o,
 * --form, --json, -h), and --help says them in that order: the loop's,
 * the system's, each driver's, the output options.
 */
struct live_driver {
	const char *name;                /* its value of the driver option */
	struct opt *(*table)(void *opts);
	struct live_opts opts;
	/* A mode instead of a capture: its exit code, LIVE_CAPTURE, or -1. */
	int (*instead)(struct live_capture *lc, struct cap_err *err);
	/* Environment checks and builds, before the corpus is begun. */
	void (*prepare)(struct live_capture *lc);
	/* Run every scenario: write sc[i]'s raw stream to raw[i]. */
	void (*run)(struct live_capture *lc);
	/* After the system's describe(): the driver's own provenance. */
	void (*describe)(struct live_capture *lc);
};

struct live_system {
	const char *summary;             /* one line for `capture --help` */
	const char *usage;               /* the help before the options */
	const char *epilog;              /* after the options; NULL: none */
	const char *scenario_help;       /* -s NAME's help */
	const char *scenarios_help;      /* --scenarios DIR's */
	const char *dir_help;            /* -o's default, as the help says it */
	struct opt *(*table)(void *opts);
	/* The option choosing the driver: LIVE_DRIVER_ROW */
	struct opt driver_row;
	struct live_opts opts;
	const struct live_driver *const *drivers; /* NULL-ended; [0]: default */
	const char *raw_ext;             /* raw/RUN.EXT */
	const char *default_dir;         /* -o's default; NULL: corpus/SYSTEM-SCENARIO */
	/*
	 * A selection of the system's own for lc->sel.scenario (spin's
	 * generated "domain"): fills lc->sc, lc->n (and lc->data) and returns
	 * 1; 0: the scenario files.
	 */
	int (*select)(struct live_capture *lc);
	/* Parse the selected scenario files into lc->data. */
	void (*prepare)(struct live_capture *lc);
	/*
	 * A mode instead of a capture (etcd's --live, --explore): its exit
	 * code, LIVE_CAPTURE to capture, or -1 with @err.
	 */
	int (*instead)(struct live_capture *lc, struct cap_err *err);
	/*
	 * After the run: the system's manifest keys (after toolkit, system,
	 * command and what the run added, e.g. corpus_vary()).
	 */
	void (*describe)(struct live_capture *lc, cJSON *manifest);
	/* Checks over all the runs (@counts: windows per action), before the commit. */
	void (*finish)(struct live_capture *lc, const cJSON *counts);
	/* Free lc->data. */
	void (*release)(struct live_capture *lc);
};

/*
 * Run the selection @lc (sys, live, driver, options, scenario... as
 * parsed): its scenarios selected and prepared, then a mode of the
 * driver's or the system's if one runs instead, else the capture (which
 * needs a scenario and no operand).  Frees the selection's files and data.
 * Returns the exit code, or -1 with @err: EXIT_USAGE and no message for
 * a usage error, whose text (live_system.usage) the caller prints.
 */
int live_run(struct live_capture *lc, struct cap_err *err);
/*
 * The capture of @lc, no mode (a mode's own selection): the files
 * selected unless lc->sc holds them, the corpus begun, every scenario run
 * and folded, the corpus committed (a failure dies with its code), the
 * selection's files and data freed.  Returns EXIT_OK.
 */
int live_capture_run(struct live_capture *lc);
/* Fill @err with a usage error (the usage text, no message); returns -1. */
int live_misuse(struct cap_err *err);

#endif
