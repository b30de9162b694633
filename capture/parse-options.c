// SPDX-License-Identifier: MIT
/*
 * The option parser (parse-options.h): a command's table flattened (its
 * includes in place), checked, and handed to getopt_long() as the table
 * and short options it takes.  A row's code is its short letter, else
 * 256 and its index: no value is numbered by hand.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json.h"
#include "parse-options.h"

/* The column of a row's help, and the gap before it at the least. */
#define HELP_COLUMN 23
#define HELP_GAP 2
/* Room for "--NAME" in a message. */
#define NAME_SIZE 128

/* A table ready for getopt_long(): its option rows, and what they become. */
struct getopt_table {
	const struct opt **rows;    /* the options, in order (no note, no end) */
	size_t n;
	struct option *longopts;    /* ended by { 0 } */
	char *shortopts;
};

static int takes_argument(const struct opt *o)
{
	return o->kind != OPT_KIND_FLAG && o->kind != OPT_KIND_HELP &&
	       (o->kind != OPT_KIND_CALLBACK || o->argh);
}

static int is_option(const struct opt *o)
{
	return o->kind != OPT_KIND_NOTE && o->kind != OPT_KIND_INCLUDE;
}

/* @table's option rows appended to @t, its includes in place. */
static void flatten(struct getopt_table *t, const struct opt *table)
{
	for (const struct opt *o = table; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_INCLUDE) {
			flatten(t, o->include);
			continue;
		}
		if (!is_option(o))
			continue;
		t->rows = xrealloc(t->rows, (t->n + 1) * sizeof(*t->rows));
		t->rows[t->n++] = o;
	}
}

struct opt *opt_table_dup(const struct opt *table)
{
	size_t n = 0;

	while (table[n].kind != OPT_KIND_END)
		n++;
	return memcpy(xmalloc((n + 1) * sizeof(*table)), table,
		      (n + 1) * sizeof(*table));
}

/* The name a message gives row @o: --LONG, else -S. */
static const char *row_name(const struct opt *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
	return buf;
}

/* A row that getopt_long() could not take, or two rows of one name. */
static int check_row(const struct getopt_table *t, size_t i, struct cap_err *err)
{
	const struct opt *o = t->rows[i];
	char buf[NAME_SIZE];

	if (!o->long_name && !o->short_name)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: row %zu "
				"has no name", i + 1);
	if (o->short_name && (o->short_name > 127 || !strchr(
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	    o->short_name)))
		return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: row %zu: "
				"short name %d is no letter or digit", i + 1,
				o->short_name);
	if (takes_argument(o) != !!o->argh)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: %s %s",
				row_name(o, buf, sizeof(buf)), o->argh ? "takes no argument "
				"to name" : "names no argument");
	if ((o->flags & OPT_UNRECORDED) && !o->argh)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: %s is "
				"unrecorded but takes no argument",
				row_name(o, buf, sizeof(buf)));
	if (o->kind == OPT_KIND_NUMBER && o->size != sizeof(int) &&
	    o->size != sizeof(long))
		return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: %s sets "
				"neither an int nor a long", row_name(o, buf, sizeof(buf)));
	for (size_t j = 0; j < i; j++) {
		const struct opt *p = t->rows[j];

		if (o->long_name && p->long_name && !strcmp(o->long_name, p->long_name))
			return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: "
					"--%s twice", o->long_name);
		if (o->short_name && o->short_name == p->short_name)
			return cap_fail(err, EXIT_CAPTURE_FAILED, "option table: "
					"-%c twice", o->short_name);
	}
	return 0;
}

/* Row @i's code: what getopt_long() returns for it. */
static int row_code(const struct getopt_table *t, size_t i)
{
	return t->rows[i]->short_name ? t->rows[i]->short_name : 256 + (int)i;
}

static void table_free(struct getopt_table *t)
{
	free(t->rows);
	free(t->longopts);
	free(t->shortopts);
}

/* @c's table as getopt_long() takes it; -1 with @err if it is wrong. */
static int table_build(const struct opt_command *c, struct getopt_table *t,
		       struct cap_err *err)
{
	size_t nl = 0, ns = 0;

	memset(t, 0, sizeof(*t));
	flatten(t, c->table);
	t->longopts = xcalloc(t->n + 1, sizeof(*t->longopts));
	t->shortopts = xcalloc(2 * t->n + 2, 1);
	if (c->flags & OPT_STOP_AT_OPERAND)
		t->shortopts[ns++] = '+';
	for (size_t i = 0; i < t->n; i++) {
		const struct opt *o = t->rows[i];

		if (check_row(t, i, err)) {
			table_free(t);
			return -1;
		}
		if (o->long_name)
			t->longopts[nl++] = (struct option){ o->long_name,
				takes_argument(o) ? required_argument : no_argument,
				NULL, row_code(t, i) };
		if (!o->short_name)
			continue;
		t->shortopts[ns++] = (char)o->short_name;
		if (takes_argument(o))
			t->shortopts[ns++] = ':';
	}
	return 0;
}

/*
 * What the last opt_parse() was given, in order: each option's row and
 * its argument, where it lies in argv: in its own element (-o DIR, --out
 * DIR) or inside the option's (-oDIR, --outp=DIR).
 */
static struct given {
	const struct opt *row;
	const char *arg;
} *given;
static size_t n_given;

int opt_given(const struct opt *row)
{
	int at = 0;

	for (size_t i = 0; i < n_given; i++)
		if (given[i].row == row)
			at = (int)i + 1;
	return at;
}

/*
 * 1 if @arg is the argument of an unrecorded option in its own element,
 * 2 if it is inside @arg.  command_argv() drops exactly those elements,
 * whatever spelling or abbreviation getopt accepted.
 */
static int unrecorded_in(const char *arg)
{
	uintptr_t start = (uintptr_t)arg, end = start + strlen(arg);

	for (size_t i = 0; i < n_given; i++) {
		uintptr_t at = (uintptr_t)given[i].arg;

		if (!(given[i].row->flags & OPT_UNRECORDED))
			continue;
		if (at == start)
			return 1;
		if (at > start && at <= end)
			return 2;
	}
	return 0;
}

static int unrecorded_count(void)
{
	int n = 0;

	for (size_t i = 0; i < n_given; i++)
		n += !!(given[i].row->flags & OPT_UNRECORDED);
	return n;
}

cJSON *command_argv(int argc, char **argv)
{
	cJSON *a = json_arr();
	int dropped = 0;

	json_add(a, NULL, json_str("capture"));
	for (int i = 0; i < argc; i++) {
		if (unrecorded_in(argv[i]) == 2) {
			dropped++;
			continue;
		}
		if (i + 1 < argc && unrecorded_in(argv[i + 1]) == 1) {
			dropped++;
			i++;
			continue;
		}
		json_add(a, NULL, json_str(argv[i]));
	}
	/*
	 * verify reruns this command: it must not name the output, and the
	 * same corpus must record the same command however many jobs made it.
	 */
	if (dropped != unrecorded_count())
		die(EXIT_CAPTURE_FAILED, "cannot tell the output and job options "
		    "apart in the command line");
	return a;
}

static int parse_choice(const struct opt *o, const char *arg, struct cap_err *err)
{
	char buf[NAME_SIZE], *known;

	for (int i = 0; o->choices[i]; i++)
		if (!strcmp(arg, o->choices[i])) {
			*(int *)o->value = i;
			return 0;
		}
	known = str_choices(o->choices);
	cap_fail(err, EXIT_USAGE, "%s: expected %s, not '%s'",
		 row_name(o, buf, sizeof(buf)), known, arg);
	free(known);
	return -1;
}

/* Row @o given with @arg (NULL: none): its field set. */
static int apply(const struct opt *o, const char *arg, struct cap_err *err)
{
	char buf[NAME_SIZE];
	const char *name = row_name(o, buf, sizeof(buf));
	long n;

	switch (o->kind) {
	case OPT_KIND_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_NUMBER:
		if (opt_number(arg, name, o->lo, o->hi, &n, err))
			return -1;
		if (o->size == sizeof(int))
			*(int *)o->value = (int)n;
		else
			*(long *)o->value = n;
		return 0;
	case OPT_KIND_SECONDS:
		return opt_seconds(arg, name, (double)o->hi, o->value, err);
	case OPT_KIND_UNSIGNED:
		return opt_unsigned(arg, name, o->value, err);
	case OPT_KIND_CHOICE:
		return parse_choice(o, arg, err);
	case OPT_KIND_CALLBACK:
		return o->cb(o, arg, err);
	default:
		return 0;
	}
}

/* The row whose code getopt_long() returned, or NULL (it said what was wrong). */
static const struct opt *row_of(const struct getopt_table *t, int code)
{
	for (size_t i = 0; i < t->n; i++)
		if (row_code(t, i) == code)
			return t->rows[i];
	return NULL;
}

static int parse_with(const struct getopt_table *t, int argc, char **argv,
		      struct cap_err *err)
{
	const struct opt *o;
	int code;

	/* 0: getopt_long() starts over (glibc), whatever was parsed before */
	optind = 0;
	while ((code = getopt_long(argc, argv, t->shortopts, t->longopts, NULL)) != -1) {
		o = row_of(t, code);
		if (!o)
			return cap_fail(err, EXIT_USAGE, "%s", "");
		if (o->kind == OPT_KIND_HELP)
			return OPT_HELP_ASKED;
		given[n_given++] = (struct given){ o, takes_argument(o) ? optarg : NULL };
		if (apply(o, takes_argument(o) ? optarg : NULL, err))
			return -1;
	}
	return optind;
}

int opt_parse(const struct opt_command *c, int argc, char **argv,
	      struct cap_err *err)
{
	struct getopt_table t;
	int rc;

	/* each option takes an element of argv at the least */
	free(given);
	given = xcalloc(argc + 1, sizeof(*given));
	n_given = 0;
	if (table_build(c, &t, err))
		return -1;
	rc = parse_with(&t, argc, argv, err);
	table_free(&t);
	return rc;
}

/*
 * CAPTURE_GETOPT_TABLE set: --help prints what getopt_long() was handed
 * instead, an option a line ("-s --scenario =": short, long, "=" if it
 * takes an argument), for a test to compare with the help.
 */
static void print_getopt_table(FILE *f, const struct opt_command *c)
{
	struct getopt_table t;
	struct cap_err err;

	if (table_build(c, &t, &err))
		die_err(&err);
	for (size_t i = 0; t.longopts[i].name; i++)
		fprintf(f, "--%s%s\n", t.longopts[i].name,
			t.longopts[i].has_arg ? " =" : "");
	for (const char *s = t.shortopts; *s; s++)
		if (*s != '+' && *s != ':')
			fprintf(f, "-%c%s\n", *s, s[1] == ':' ? " =" : "");
	table_free(&t);
}

int parse_options(const struct opt_command *c, int argc, char **argv)
{
	struct cap_err err;
	int rc = opt_parse(c, argc, argv, &err);

	if (rc == OPT_HELP_ASKED)
		opt_usage(c, 1);
	if (rc < 0 && err.code == EXIT_USAGE && !*cap_err_text(&err))
		opt_usage(c, 0);
	if (rc < 0)
		die_err(&err);
	return rc;
}

/* @text's lines, each but the first indented to the help column. */
static void help_lines(FILE *f, const char *text, int first_indented)
{
	for (int first = 1; ; first = 0) {
		size_t n = strcspn(text, "\n");

		if (!first || first_indented)
			fprintf(f, "%*s", HELP_COLUMN, "");
		fprintf(f, "%.*s\n", (int)n, text);
		if (!text[n])
			return;
		text += n + 1;
	}
}

static void help_row(FILE *f, const struct opt *o)
{
	int pos;

	if (o->kind == OPT_KIND_NOTE) {
		help_lines(f, o->help, 1);
		return;
	}
	if (o->short_name)
		pos = fprintf(f, "  -%c%s", o->short_name, o->long_name ? ", " : "");
	else
		pos = fprintf(f, "      ");
	if (o->long_name)
		pos += fprintf(f, "--%s", o->long_name);
	if (o->argh)
		pos += fprintf(f, " %s", o->argh);
	fprintf(f, "%*s", pos <= HELP_COLUMN - HELP_GAP ? HELP_COLUMN - pos : HELP_GAP, "");
	help_lines(f, o->help, 0);
}

static void help_rows(FILE *f, const struct opt *table)
{
	for (const struct opt *o = table; o->kind != OPT_KIND_END; o++)
		if (o->kind == OPT_KIND_INCLUDE)
			help_rows(f, o->include);
		else
			help_row(f, o);
}

void opt_help(FILE *f, const struct opt_command *c)
{
	fprintf(f, "%s\noptions:\n", c->usage);
	help_rows(f, c->table);
	if (c->epilog)
		fprintf(f, "\n%s", c->epilog);
}

void opt_usage(const struct opt_command *c, int help)
{
	const char *dump = getenv("CAPTURE_GETOPT_TABLE");

	if (help && dump && *dump)
		print_getopt_table(stdout, c);
	else
		opt_help(help ? stdout : stderr, c);
	exit(help ? EXIT_OK : EXIT_USAGE);
}

int opt_number(const char *arg, const char *name, long lo, long hi, long *v,
	       struct cap_err *err)
{
	char *end;

	*v = strtol(arg, &end, 10);
	if (end == arg || *end || *v < lo || *v > hi)
		return cap_fail(err, EXIT_USAGE, "%s %s: expected a number from "
				"%ld to %ld", name, arg, lo, hi);
	return 0;
}

int opt_unsigned(const char *arg, const char *name, unsigned long long *v,
		 struct cap_err *err)
{
	char *end;

	*v = strtoull(arg, &end, 10);
	if (end == arg || *end || *arg == '-')
		return cap_fail(err, EXIT_USAGE, "%s %s: expected an unsigned "
				"integer", name, arg);
	return 0;
}

int opt_seconds(const char *arg, const char *name, double max, double *v,
		struct cap_err *err)
{
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || *end || !(*v > 0) || *v > max)
		return cap_fail(err, EXIT_USAGE, "%s %s: expected a number of "
				"seconds above 0, at most %.0f", name, arg, max);
	return 0;
}
