/* SPDX-License-Identifier: MIT */
/*
 * Scenario files, for every live system: DIR/NN-NAME, NN ordering them
 * (for "all" and for run names), NAME of letters, digits, '-' and '_'.
 * What a file says is the system's own format; here only names.
 */
#ifndef CAPTURE_SCENARIO_H
#define CAPTURE_SCENARIO_H

#include <stddef.h>

struct scenario_file {
	char *name;   /* "contention" */
	char *run;    /* "01-contention": window and raw file stem */
	char *path;   /* "DIR/01-contention" */
	int index;    /* 1 */
};

/* NN of @file, pointing @name at NAME; -1 if @file is no such name. */
int scenario_file_name(const char *file, const char **name);
int is_scenario_file(const char *file);

/*
 * The scenario files of @dir in NN order; NULL if @dir cannot be read.
 * *@n gets their number.
 */
struct scenario_file *scenario_list(const char *dir, size_t *n);

/*
 * The files of @dir that @which names (NAME, NN-NAME, or "all"), in NN
 * order; a @which with a '/' is one scenario file, wherever it is.  Dies with EXIT_USAGE when none matches, listing the known ones
 * ("no SYSTEM scenario 'x' (known: a, b, or all)"), and when @dir cannot
 * be read, with EXIT_USAGE if the user named it (@given), else
 * EXIT_ENV_MISSING (the installation lacks it).
 */
struct scenario_file *scenario_select(const char *system, const char *dir,
				      int given, const char *which, size_t *n);

/* Frees the @n files of @v and @v. */
void scenario_files_free(struct scenario_file *v, size_t n);

#endif
