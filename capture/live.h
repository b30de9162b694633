/* SPDX-License-Identifier: MIT */
/*
 * The live-capture interface (docs/architecture.md): what a live system
 * and its drivers give the one loop behind `capture SYSTEM`
 * (capture/cli/live.c), and what the loop gives them.  A NULL hook is
 * skipped.  Hooks report failure by dying with the README's exit codes.
 */
#ifndef CAPTURE_LIVE_H
#define CAPTURE_LIVE_H

#include <getopt.h>
#include <cJSON.h>
#include "scenario.h"

struct corpus;
struct system;
struct output_options;

/* One `capture SYSTEM` in progress. */
struct live_capture {
	const struct system *sys;
	const struct live_driver *driver;  /* the one chosen */
	const struct folder *folder; /* what folds the runs: the system's, or
				      * one refining it (set by prepare()) */
	const char *scenario;        /* --scenario as given; NULL: none */
	const char *scenarios;       /* --scenarios DIR as given; NULL: none */
	const struct output_options *out;  /* -o, --form, --json as given */
	const char *driver_option;   /* an option of a driver given (the
				      * last), or NULL */
	int argc;                    /* the command line (argv[0]: SYSTEM), */
	char **argv;                 /* which a mode's manifest records */
	char **operands;             /* what follows the options: an instead()
				      * mode's (a capture takes none) */
	int noperands;
	struct scenario_file *sc;    /* the selected files, in NN order */
	size_t n;
	void *data;                  /* what live_system.prepare() made of them */
	struct corpus *corpus;       /* from the corpus's begin on */
	char **raw;                  /* raw[i]: DIR/raw/RUN.EXT of sc[i] */
	char **maps;                 /* maps[i]: the step map of sc[i]'s raw
				      * stream (struct fold_run), a file the
				      * loop removes; NULL: none */
	cJSON *environment;          /* provenance: the manifest's "environment" */
};

/*
 * Options: each hook's table is a getopt_long table ended by { 0 }; the
 * values must not be ASCII letters the loop uses (s, o, h) nor below 256
 * unless the option has that short letter; pick them from 0x1000 up, apart
 * per system.  option() takes one of its table's options.
 */
struct live_driver {
	const char *name;                /* its value of the driver option */
	const struct option *options;    /* its own; NULL: none */
	void (*option)(int opt, const char *arg);
	/* A mode instead of a capture: its exit code, or -1 to capture. */
	int (*instead)(struct live_capture *lc);
	/* Environment checks and builds, before the corpus is begun. */
	void (*prepare)(struct live_capture *lc);
	/* Run every scenario: write sc[i]'s raw stream to raw[i]. */
	void (*run)(struct live_capture *lc);
	/* After the system's describe(): the driver's own provenance. */
	void (*describe)(struct live_capture *lc);
};

struct live_system {
	const char *summary;             /* one line for `capture --help` */
	const char *usage;               /* the whole --help text */
	const char *shortopts;           /* its short options beyond s: o: h */
	const struct option *options;    /* its own; NULL: none */
	void (*option)(int opt, const char *arg);
	/* The option choosing the driver: { "kernel", ..., 'k' } */
	struct option driver_option;
	const struct live_driver *const *drivers; /* NULL-ended; [0]: default */
	const char *raw_ext;             /* raw/RUN.EXT */
	const char *default_dir;         /* -o's default; NULL: corpus/SYSTEM-SCENARIO */
	/*
	 * A selection of the system's own for lc->scenario (spin's generated
	 * "domain"): fills lc->sc, lc->n (and lc->data) and returns 1; 0: the
	 * scenario files.
	 */
	int (*select)(struct live_capture *lc);
	/* Parse the selected scenario files into lc->data. */
	void (*prepare)(struct live_capture *lc);
	/*
	 * A mode instead of a capture (etcd's --live, --explore): its exit
	 * code, or -1 to capture.
	 */
	int (*instead)(struct live_capture *lc);
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

/* Print the system's usage (to stderr) and exit 2. */
_Noreturn void live_usage(const struct live_capture *lc);
/*
 * `capture SYSTEM` (the loop, capture/cli/live.c) taking the scenario
 * files from @from, whatever argv's --scenarios says (a corpus keeps a
 * copy of each: what verify reruns): etcd's --explore captures what it
 * found through it.  Returns the exit code.
 */
int live_capture_from(const struct system *sys, int argc, char **argv,
		      const char *from);

#endif
