// SPDX-License-Identifier: MIT
/*
 * The option parser (capture/parse-options.h): each kind sets its field,
 * refuses a value out of range naming the option and the value, a
 * missing argument and an unknown option are usage errors, a table with a
 * name twice is refused, and the help is the rows formatted.
 */
#include <stdlib.h>
#include <string.h>
#include "capture/json.h"
#include "capture/parse-options.h"
#include "unit.h"

struct values {
	int flag, cpus, choice;
	long budget;
	double seconds;
	unsigned long long seed;
	const char *name, *out, *called;
};

static const char *const colors[] = { "red", "green", "blue", NULL };

static int remember(const struct opt *o, const char *arg, struct cap_err *err)
{
	if (!strcmp(arg, "bad"))
		return cap_fail(err, EXIT_USAGE, "--%s %s: refused", o->long_name, arg);
	*(const char **)o->value = arg;
	return 0;
}

/* A command line of the words of @line (at most 16), argv[0] "t". */
static int split(char *line, char **argv)
{
	int argc = 0;

	argv[argc++] = "t";
	for (char *w = strtok(line, " "); w && argc < 16; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	return argc;
}

/* opt_parse() of @line by @c: its result, @err filled if it is -1. */
static int parse(const struct opt_command *c, const char *line,
		 struct cap_err *err)
{
	static char buf[256];
	static char *argv[17];

	snprintf(buf, sizeof(buf), "%s", line);
	return opt_parse(c, split(buf, argv), argv, err);
}

static struct values v;

static const struct opt group[] = {
	OPT_STRING('o', "output", &v.out, "DIR", "where"),
	OPT_END(),
};

static const struct opt table[] = {
	OPT_FLAG('f', "force", &v.flag, "replace it"),
	OPT_NUMBER(0, "cpus", &v.cpus, "N", 1, 2, "guest CPUs"),
	OPT_NUMBER(0, "budget", &v.budget, "N", 1, 1000000000, "scenarios to try"),
	OPT_SECONDS(0, "seconds", &v.seconds, "S", 10, "how long"),
	OPT_UNSIGNED(0, "seed", &v.seed, "N", "the seed"),
	OPT_CHOICE('c', "color", &v.choice, "COLOR", colors, "red, green or blue"),
	OPT_STRING('n', "name", &v.name, "NAME", "a name"),
	OPT_CALLBACK(0, "call", &v.called, "ARG", remember, "any but bad"),
	OPT_INCLUDE(group),
	OPT_HELP(),
	OPT_END(),
};

static const struct opt_command command = { "usage: t [options]\n", table, NULL, 0 };

static void expect_parse(const char *name, const char *line, int want)
{
	struct cap_err err;
	int rc = parse(&command, line, &err);

	if (rc == want)
		pass(name);
	else
		fail(name, "%s: %d, not %d (%s)", line, rc, want,
		     rc == -1 ? cap_err_text(&err) : "");
}

static void kinds(void)
{
	memset(&v, 0, sizeof(v));
	expect_parse("every kind parses", "-f --cpus 2 --budget=7 --seconds 0.5 "
		     "--seed 18446744073709551615 -c blue -nx --call y --out d op", 16);
	check("a flag sets 1", v.flag == 1, "not set");
	check("an int number", v.cpus == 2, "not 2");
	check("a long number (--NAME=VALUE)", v.budget == 7, "not 7");
	check("seconds, a fraction", v.seconds == 0.5, "not 0.5");
	check("unsigned: all 64 bits", v.seed == 18446744073709551615ull, "not 2^64-1");
	check("a choice: its index", v.choice == 2, "not 2");
	check("a string (-nVALUE)", v.name && !strcmp(v.name, "x"), "not x");
	check("a callback", v.called && !strcmp(v.called, "y"), "not y");
	check("an included row, abbreviated (--out)", v.out && !strcmp(v.out, "d"),
	      "not d");
	check("opt_given: where each was given", opt_given(&table[0]) == 1 &&
	      opt_given(&table[7]) == 8 && opt_given(&group[0]) == 9 &&
	      !opt_given(&table[9]), "wrong places");
	expect_parse("-h", "--cpus 1 -h --cpus 9", OPT_HELP_ASKED);
}

static void expect_refused(const char *name, const char *line, enum exit_code code,
			   const char *msg)
{
	struct cap_err err;
	int rc = parse(&command, line, &err);

	if (rc != -1)
		fail(name, "%s: %d, not refused", line, rc);
	else
		expect_err(name, &err, code, msg);
}

static void refusals(void)
{
	expect_refused("a number above its range", "--cpus 3", EXIT_USAGE,
		       "--cpus 3: expected a number from 1 to 2");
	expect_refused("a number below its range", "--cpus 0", EXIT_USAGE,
		       "--cpus 0: expected a number from 1 to 2");
	expect_refused("not a number", "--budget 5x", EXIT_USAGE,
		       "--budget 5x: expected a number from 1 to 1000000000");
	expect_refused("seconds at 0", "--seconds 0", EXIT_USAGE,
		       "--seconds 0: expected a number of seconds above 0, at most 10");
	expect_refused("seconds past the most", "--seconds 11", EXIT_USAGE,
		       "--seconds 11: expected a number of seconds above 0, at most 10");
	expect_refused("unsigned: no sign", "--seed -1", EXIT_USAGE,
		       "--seed -1: expected an unsigned integer");
	expect_refused("a choice not in the list", "-c pink", EXIT_USAGE,
		       "--color: expected red, green or blue, not 'pink'");
	expect_refused("a callback's refusal", "--call bad", EXIT_USAGE,
		       "--call bad: refused");
	/* getopt_long() says what (on stderr); the caller prints the usage */
	expect_refused("a missing argument", "--cpus", EXIT_USAGE, "");
	expect_refused("a missing argument (short)", "-n", EXIT_USAGE, "");
	expect_refused("an unknown option", "--no-such-option", EXIT_USAGE, "");
	expect_refused("an unknown short option", "-z", EXIT_USAGE, "");
	expect_refused("an argument to a flag", "--force=1", EXIT_USAGE, "");
}

static void expect_table_refused(const char *name, const struct opt *t,
				 const char *msg)
{
	struct opt_command c = { "usage: t\n", t, NULL, 0 };
	struct cap_err err;

	if (parse(&c, "", &err) != -1)
		fail(name, "accepted");
	else
		expect_err(name, &err, EXIT_CAPTURE_FAILED, msg);
}

static void tables(void)
{
	int a, b;
	const char *s;

	expect_table_refused("a long name twice", (const struct opt[]){
		OPT_FLAG(0, "x", &a, "h"), OPT_FLAG(0, "x", &b, "h"), OPT_END() },
		"option table: --x twice");
	expect_table_refused("a short letter twice: one code for two rows",
		(const struct opt[]){ OPT_FLAG('x', "one", &a, "h"),
		OPT_FLAG('x', "two", &b, "h"), OPT_END() }, "option table: -x twice");
	expect_table_refused("a group included twice", (const struct opt[]){
		OPT_INCLUDE(group), OPT_INCLUDE(group), OPT_END() },
		"option table: --output twice");
	expect_table_refused("a row without a name", (const struct opt[]){
		OPT_FLAG(0, NULL, &a, "h"), OPT_END() },
		"option table: row 1 has no name");
	expect_table_refused("a short name that is no letter", (const struct opt[]){
		OPT_FLAG('?', "q", &a, "h"), OPT_END() },
		"option table: row 1: short name 63 is no letter or digit");
	expect_table_refused("a string without its argument's name",
		(const struct opt[]){ OPT_STRING(0, "s", &s, NULL, "h"), OPT_END() },
		"option table: --s names no argument");
	expect_table_refused("an unrecorded flag", (const struct opt[]){
		{ .kind = OPT_KIND_FLAG, .long_name = "q", .value = &a, .help = "h",
		  .flags = OPT_UNRECORDED }, OPT_END() },
		"option table: --q is unrecorded but takes no argument");
}

static void operands(void)
{
	const struct opt t[] = { OPT_FLAG('f', "force", &v.flag, "h"), OPT_END() };
	struct opt_command stop = { "usage: t\n", t, NULL, OPT_STOP_AT_OPERAND };
	struct opt_command mixed = { "usage: t\n", t, NULL, 0 };
	struct cap_err err;

	check("options end at the first operand", parse(&stop, "cmd -f", &err) == 1,
	      "-f after the operand taken");
	check("else operands go last (getopt's permutation)",
	      parse(&mixed, "cmd -f", &err) == 2, "not permuted");
	check("-- ends the options", parse(&mixed, "-- -f", &err) == 2,
	      "-f after -- taken");
}

/* Every argument but those of the OPT_UNRECORDED rows. */
static void unrecorded(void)
{
	const char *dir = NULL, *name = NULL;
	const struct opt t[] = {
		{ .kind = OPT_KIND_STRING, .short_name = 'o', .long_name = "output",
		  .value = &dir, .argh = "DIR", .help = "h", .flags = OPT_UNRECORDED },
		OPT_STRING(0, "name", &name, "NAME", "h"),
		OPT_END(),
	};
	struct opt_command c = { "usage: t\n", t, NULL, 0 };
	char *argv[] = { "t", "-o", "d", "--name", "n", "--out=e", "-of", NULL };
	struct cap_err err;
	cJSON *a;
	char *got;

	opt_parse(&c, 7, argv, &err);
	a = command_argv(7, argv);
	got = cJSON_PrintUnformatted(a);
	check("the manifest's command leaves out the unrecorded options",
	      !strcmp(got, "[\"capture\",\"t\",\"--name\",\"n\"]"), got);
	free(got);
	cJSON_Delete(a);
}

static const char want_help[] =
	"usage: t [options]\n"
	"\n"
	"options:\n"
	"  -f, --force          replace it\n"
	"      --cpus N         guest CPUs\n"
	"      --a-long-name-here ARG  two spaces\n"
	"                       and the next line under the help\n"
	"                       a note under the row above\n"
	"  -o DIR               a short letter alone\n"
	"  -h, --help           this text\n"
	"\n"
	"after the options\n";

static void help(void)
{
	const char *s;
	const struct opt t[] = {
		OPT_FLAG('f', "force", &v.flag, "replace it"),
		OPT_NUMBER(0, "cpus", &v.cpus, "N", 1, 2, "guest CPUs"),
		OPT_STRING(0, "a-long-name-here", &s, "ARG",
			   "two spaces\nand the next line under the help"),
		OPT_NOTE("a note under the row above"),
		OPT_STRING('o', NULL, &s, "DIR", "a short letter alone"),
		OPT_HELP(),
		OPT_END(),
	};
	struct opt_command c = { "usage: t [options]\n", t, "after the options\n", 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	opt_help(f, &c);
	fclose(f);
	if (!strcmp(buf, want_help))
		pass("the help: a row per option, its help at column 24");
	else
		fail("the help: a row per option, its help at column 24",
		     "got\n%s", buf);
	free(buf);
}

/* A table a function fills in, handed on as a copy. */
static void copies(void)
{
	struct opt *d = opt_table_dup(table);
	size_t n = sizeof(table) / sizeof(table[0]);

	check("a copy of a table: its rows to the end",
	      !memcmp(d, table, n * sizeof(*d)), "differs");
	free(d);
}

int main(void)
{
	kinds();
	refusals();
	tables();
	operands();
	unrecorded();
	help();
	copies();
	return unit_status();
}
