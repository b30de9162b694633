/* SPDX-License-Identifier: MIT */
/*
 * Command-line options, one row each (git's parse-options): a row names
 * the option (long name, short letter), the field it sets, how its
 * argument is parsed and checked, and its help.  From a command's table
 * come getopt_long()'s table and codes, the values, and the --help text
 * ("options:" and a row per option under the command's usage), so an
 * option is spelled once.  Options several commands share are rows
 * macros (capture/options.h).
 */
#ifndef CAPTURE_PARSE_OPTIONS_H
#define CAPTURE_PARSE_OPTIONS_H

#include <stddef.h>
#include <stdio.h>
#include "err.h"

struct opt;
/* Parse @arg into @o->value; -1 with @err (EXIT_USAGE, naming the option). */
typedef int opt_cb(const struct opt *o, const char *arg, struct cap_err *err);

enum opt_kind {
	OPT_KIND_END,       /* the table ends */
	OPT_KIND_INCLUDE,   /* the rows of another table, here */
	OPT_KIND_NOTE,      /* no option: more help under the row above */
	OPT_KIND_HELP,      /* -h, --help: the help on stdout, exit 0 */
	OPT_KIND_FLAG,      /* int: 1 */
	OPT_KIND_STRING,    /* const char *: the argument */
	OPT_KIND_NUMBER,    /* int or long: a whole number from lo to hi */
	OPT_KIND_SECONDS,   /* double: seconds above 0, at most hi */
	OPT_KIND_UNSIGNED,  /* unsigned long long: any (a seed) */
	OPT_KIND_CHOICE,    /* int: the argument's index in choices */
	OPT_KIND_CALLBACK,  /* cb(row, argument): an argument iff argh */
};

/*
 * The option does not change what is written (-o, -j): its argument is
 * left out of the command line a manifest records (command_argv()).
 */
#define OPT_UNRECORDED 1u

struct opt {
	enum opt_kind kind;
	int short_name;             /* a letter or digit; 0: none */
	const char *long_name;      /* NULL: none */
	void *value;                /* the field it sets */
	const char *argh;           /* its argument's name in the help; NULL: none */
	const char *help;           /* lines apart by '\n', no '\n' at the end */
	unsigned flags;             /* OPT_UNRECORDED */
	size_t size;                /* NUMBER: sizeof(int) or sizeof(long) */
	long lo, hi;                /* NUMBER: the range; SECONDS: hi, the most */
	const char *const *choices; /* CHOICE: the names, NULL-ended */
	opt_cb *cb;                 /* CALLBACK */
	const struct opt *include;  /* INCLUDE */
};

/* The field @v of a row, of the type its kind sets (a mismatch does not compile). */
#define OPT_FIELD(v, type) _Generic((v), type: (v))

#define OPT_END() { .kind = OPT_KIND_END }
#define OPT_INCLUDE(table) { .kind = OPT_KIND_INCLUDE, .include = (table) }
#define OPT_NOTE(h) { .kind = OPT_KIND_NOTE, .help = (h) }
#define OPT_HELP() { .kind = OPT_KIND_HELP, .short_name = 'h', \
	.long_name = "help", .help = "this text" }
#define OPT_FLAG(s, l, v, h) { .kind = OPT_KIND_FLAG, .short_name = (s), \
	.long_name = (l), .value = OPT_FIELD(v, int *), .help = (h) }
#define OPT_STRING(s, l, v, a, h) { .kind = OPT_KIND_STRING, .short_name = (s), \
	.long_name = (l), .value = OPT_FIELD(v, const char **), .argh = (a), .help = (h) }
#define OPT_NUMBER(s, l, v, a, min, max, h) { .kind = OPT_KIND_NUMBER, \
	.short_name = (s), .long_name = (l), \
	.value = _Generic((v), int *: (v), long *: (v)), .size = sizeof(*(v)), \
	.argh = (a), .lo = (min), .hi = (max), .help = (h) }
#define OPT_SECONDS(s, l, v, a, max, h) { .kind = OPT_KIND_SECONDS, \
	.short_name = (s), .long_name = (l), .value = OPT_FIELD(v, double *), \
	.argh = (a), .hi = (max), .help = (h) }
#define OPT_UNSIGNED(s, l, v, a, h) { .kind = OPT_KIND_UNSIGNED, .short_name = (s), \
	.long_name = (l), .value = OPT_FIELD(v, unsigned long long *), .argh = (a), \
	.help = (h) }
#define OPT_CHOICE(s, l, v, a, names, h) { .kind = OPT_KIND_CHOICE, \
	.short_name = (s), .long_name = (l), .value = OPT_FIELD(v, int *), \
	.argh = (a), .choices = (names), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, fn, h) { .kind = OPT_KIND_CALLBACK, \
	.short_name = (s), .long_name = (l), .value = (v), .argh = (a), .cb = (fn), \
	.help = (h) }

/*
 * A copy of @table, its rows to OPT_END (malloc'ed; an include still
 * points at its table): for a table a function fills in with the
 * pointers of a context it is given, which its caller keeps and frees.
 */
struct opt *opt_table_dup(const struct opt *table);

/* Options end at the first operand (a COMMAND whose options are its own). */
#define OPT_STOP_AT_OPERAND 1u

/* A command's options and what its --help says around them. */
struct opt_command {
	const char *usage;          /* the usage lines and what it does */
	const struct opt *table;
	const char *epilog;         /* after the options; NULL: nothing */
	unsigned flags;             /* OPT_STOP_AT_OPERAND */
};

/* What opt_parse() returns for -h, --help. */
#define OPT_HELP_ASKED (-2)

/*
 * Parse @argv's options (argv[0]: the command's name) by @c's table into
 * the rows' fields: the index of the first operand; OPT_HELP_ASKED at
 * -h or --help; -1 with @err on a usage error (EXIT_USAGE: a value
 * refused, the message names the option and the value; no message:
 * getopt_long() said what on stderr, the usage follows) or a table that
 * is wrong (EXIT_CAPTURE_FAILED: a name twice, a row without a name).
 */
int opt_parse(const struct opt_command *c, int argc, char **argv,
	      struct cap_err *err);
/*
 * opt_parse() for a command: -h prints the help on stdout and exits 0, a
 * usage error prints the usage on stderr and exits 2, a refused value
 * dies with its message.  Returns the index of the first operand.
 */
int parse_options(const struct opt_command *c, int argc, char **argv);

/*
 * The help: the usage, "options:", each row (its names, its argument,
 * its help at column 24), the epilog.
 */
void opt_help(FILE *f, const struct opt_command *c);
/* The help on stdout and exit 0 (@help), or on stderr and exit 2. */
_Noreturn void opt_usage(const struct opt_command *c, int help);

/*
 * Where option @row was last given in the command line opt_parse() read
 * last: 1 for the first option given, 2 for the next...; 0: not given.
 */
int opt_given(const struct opt *row);

/*
 * The command line @argv, as the last opt_parse() read it, without its
 * OPT_UNRECORDED options, for manifests.
 */
struct cJSON *command_argv(int argc, char **argv);

/*
 * The value parsers the kinds share, and commands that read an option's
 * argument later (what it means depends on another option): -1 with
 * @err (EXIT_USAGE) naming option @name and @arg if it is refused.
 */
/* @arg as a whole number from @lo to @hi. */
int opt_number(const char *arg, const char *name, long lo, long hi, long *v,
	       struct cap_err *err);
/* @arg as any unsigned 64-bit number (a seed). */
int opt_unsigned(const char *arg, const char *name, unsigned long long *v,
		 struct cap_err *err);
/* @arg as seconds above 0 and at most @max (a fraction allowed). */
int opt_seconds(const char *arg, const char *name, double max, double *v,
		struct cap_err *err);

#endif
