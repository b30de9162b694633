// SPDX-License-Identifier: MIT
/* Scenario discovery, the same for every live system (scenario.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "proc.h"
#include "scenario.h"

int scenario_file_name(const char *file, const char **name)
{
	const char *p = file;
	int index = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p) && index < 10000)
		index = index * 10 + (*p++ - '0');
	if (*p++ != '-' || !*p)
		return -1;
	*name = p;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return -1;
	return index;
}

int is_scenario_file(const char *file)
{
	const char *name;

	return scenario_file_name(file, &name) >= 0;
}

/* NN order; equal NN (01-a, 1-b) by file name, so the order is total. */
static int by_index(const void *a, const void *b)
{
	const struct scenario_file *x = a, *y = b;

	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return strcmp(x->run, y->run);
}

struct scenario_file *scenario_list(const char *dir, size_t *n)
{
	char **names = list_dir(dir, is_scenario_file, n);
	struct scenario_file *v;

	if (!names)
		return NULL;
	v = xcalloc(*n ? *n : 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++) {
		const char *name = "";

		v[i].index = scenario_file_name(names[i], &name);
		v[i].name = xstrdup(name);
		v[i].path = xasprintf("%s/%s", dir, names[i]);
		v[i].run = names[i];
	}
	free(names);
	qsort(v, *n, sizeof(*v), by_index);
	return v;
}

static _Noreturn void unknown(const char *system, const char *which,
			      const struct scenario_file *v, size_t n)
{
	char *known = xstrdup("");

	for (size_t i = 0; i < n; i++)
		known = str_append(known, i ? ", " : "", v[i].name);
	die(EXIT_USAGE, "no %s scenario '%s' (known: %s%sall)", system, which,
	    known, n ? ", or " : "");
}

static int selects(const char *which, const struct scenario_file *f)
{
	return !strcmp(which, "all") || !strcmp(which, f->name) ||
	       !strcmp(which, f->run);
}

static void scenario_file_free(struct scenario_file *f)
{
	free(f->name);
	free(f->run);
	free(f->path);
}

/* --scenario DIR/NN-NAME: that one file, wherever it is. */
static struct scenario_file *one_file(const char *path, size_t *n)
{
	const char *base = strrchr(path, '/') + 1, *name = "";
	struct scenario_file *v = xcalloc(1, sizeof(*v));

	if (!file_exists(path))
		die(EXIT_USAGE, "%s: no such scenario file", path);
	v->index = scenario_file_name(base, &name);
	if (v->index < 0)
		die(EXIT_USAGE, "%s: scenario file names are NN-NAME (NAME of "
		    "letters, digits, - and _)", path);
	v->name = xstrdup(name);
	v->run = xstrdup(base);
	v->path = xstrdup(path);
	*n = 1;
	return v;
}

struct scenario_file *scenario_select(const char *system, const char *dir,
				      int given, const char *which, size_t *n)
{
	size_t all, got = 0;
	struct scenario_file *v;

	if (strchr(which, '/'))
		return one_file(which, n);
	v = scenario_list(dir, &all);
	if (!v)
		die(given ? EXIT_USAGE : EXIT_ENV_MISSING,
		    "%s: cannot open the scenario directory", dir);
	for (size_t i = 0; i < all && !got; i++)
		got = selects(which, &v[i]);
	if (!got)
		unknown(system, which, v, all);
	got = 0;
	for (size_t i = 0; i < all; i++) {
		if (selects(which, &v[i]))
			v[got++] = v[i];
		else
			scenario_file_free(&v[i]);
	}
	*n = got;
	return v;
}

void scenario_files_free(struct scenario_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		scenario_file_free(&v[i]);
	free(v);
}
