/* SPDX-License-Identifier: MIT */
/* Command-line options several subcommands share. */
#ifndef CAPTURE_OPTIONS_H
#define CAPTURE_OPTIONS_H

#include <getopt.h>
#include "windows.h"

struct folder;

/* Output options: -o DIR, --form event|stream|itf, --json python|compact|canonical. */
struct output_options {
	const char *dir;
	int form;        /* -1: the system's reference form */
	int style;
};
#define OUTPUT_OPTIONS_INIT { NULL, -1, JSON_PYTHON }

#define OUTPUT_LONG_OPTIONS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "form", required_argument, NULL, 'F' }, \
	{ "json", required_argument, NULL, 'J' }
#define OUTPUT_OPTIONS_HELP(default_dir) \
	"  -o, --output DIR     write the corpus to DIR, atomically (default:\n" \
	"                       " default_dir ")\n" \
	"      --form FORM      window form: event, stream, or itf (Informal\n" \
	"                       Trace Format; default: the system's reference\n" \
	"                       corpus form)\n" \
	"      --json STYLE     python (default), compact, or canonical (RFC 8785)\n"

/* Handle one getopt result; returns 1 if it was an output option. */
int output_option(int opt, const char *arg, struct output_options *o);
struct output_format output_format_for(const struct output_options *o,
				       const struct folder *f);

/* Print @usage to stdout (--help) and exit 0, or to stderr and exit 2. */
_Noreturn void usage(const char *text, int help);

/*
 * @arg (getopt's optarg) belongs to an option that does not change what is
 * written (-j): command_argv() leaves it out, as it does -o.
 */
void option_unrecorded(const char *arg);
/* @arg of option @name as a whole number in [@lo, @hi]; else exit 2. */
long option_number(const char *arg, const char *name, long lo, long hi);
/* --ring-bytes N of the eBPF commands: a power of two of at least 4096. */
unsigned long option_ring_bytes(const char *arg);

/* The command line (argv) without -o/--output and -j/--jobs, for manifests. */
struct cJSON *command_argv(int argc, char **argv);

#endif
