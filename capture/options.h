/* SPDX-License-Identifier: MIT */
/* Command-line options several subcommands share. */
#ifndef CAPTURE_OPTIONS_H
#define CAPTURE_OPTIONS_H

#include <getopt.h>
#include "parse-options.h"
#include "windows.h"

struct folder;

/* Output options: -o DIR, --form event|stream|itf, --json python|compact|canonical. */
struct output_options {
	const char *dir;
	int form;        /* -1: the system's reference form */
	int style;
	const char *form_arg, *style_arg;  /* --form, --json as given, or NULL */
};
#define OUTPUT_OPTIONS_INIT { NULL, -1, JSON_PYTHON, NULL, NULL }

#define OUTPUT_LONG_OPTIONS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "form", required_argument, NULL, 'F' }, \
	{ "json", required_argument, NULL, 'J' }
#define OUTPUT_OPTIONS_HELP(default_dir) \
	"  -o, --output DIR     write the corpus to DIR, atomically (default:\n" \
	"                       " default_dir ")\n" \
	"      --form FORM      window form: event, stream, itf (Informal\n" \
	"                       Trace Format) or canonical (SysMoBench's window\n" \
	"                       validation, a file per action; default: the\n" \
	"                       system's reference corpus form)\n" \
	"      --json STYLE     python (default), compact, or canonical (RFC 8785)\n"

/*
 * The eBPF commands' ring-buffer options (capture go, capture etcd's eBPF
 * driver and --live), spelled and documented once: --ring-bytes N (a
 * power of two of at least 4096; 0: the engine's default) and --hold-ring.
 * Their values are below the systems' (0x1000 up, capture/live.h).
 */
struct ring_options {
	unsigned long bytes;
	int hold;
};
enum { OPT_RING_BYTES = 0x0900, OPT_HOLD_RING };
#define RING_LONG_OPTIONS \
	{ "ring-bytes", required_argument, NULL, OPT_RING_BYTES }, \
	{ "hold-ring", no_argument, NULL, OPT_HOLD_RING }
/* @target: what runs under the probes ("COMMAND", "the harness"). */
#define RING_OPTIONS_HELP(target) \
	"      --ring-bytes N   ring-buffer size (power of two; default 1 MiB)\n" \
	"      --hold-ring      read the ring buffer only after " target " exits\n" \
	"                       (with a small --ring-bytes: tests loss accounting)\n"
/* Handle one getopt result; returns 1 if it was a ring option. */
int ring_option(int opt, const char *arg, struct ring_options *r);

/* Handle one getopt result; returns 1 if it was an output option. */
int output_option(int opt, const char *arg, struct output_options *o);
struct output_format output_format_for(const struct output_options *o,
				       const struct folder *f);

/* Print @usage to stdout (--help) and exit 0, or to stderr and exit 2. */
_Noreturn void usage(const char *text, int help);

/*
 * The option parsers every command shares; a value out of range is exit 2
 * naming the option and the value.
 */
/* @arg of option @name as a whole number in [@lo, @hi]. */
long option_number(const char *arg, const char *name, long lo, long hi);
/* @arg as any unsigned 64-bit number (a seed). */
unsigned long long option_unsigned(const char *arg, const char *name);
/* @arg as seconds above 0 and at most @max (a fraction allowed). */
double option_seconds(const char *arg, const char *name, double max);

#endif
