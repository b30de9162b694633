/* SPDX-License-Identifier: MIT */
/* Command-line options several subcommands share. */
#ifndef CAPTURE_OPTIONS_H
#define CAPTURE_OPTIONS_H

#include <getopt.h>
#include "parse-options.h"
#include "json.h"
#include "windows.h"

struct folder;

/* Output options: -o DIR, --form event|stream|itf, --json python|compact|canonical. */
struct output_options {
	const char *dir;
	int form;        /* enum window_form; -1: the system's reference form */
	int style;       /* enum json_style; -1: python, not given */
};
#define OUTPUT_OPTIONS_INIT { NULL, -1, -1 }

/*
 * The output options' rows, filling the struct output_options @v: -o DIR
 * (written atomically; @default_dir, a string literal, says the default),
 * --form (its help @form_help) and --json.
 */
#define OPT_OUTPUT(v, default_dir) \
	OPT_OUTPUT_DIR(v, OUTPUT_DIR_HELP(default_dir)), \
	OPT_OUTPUT_FORM(v, OUTPUT_FORM_HELP), \
	OPT_OUTPUT_JSON(v)
#define OUTPUT_DIR_HELP(default_dir) \
	"write the corpus to DIR, atomically (default:\n" default_dir ")"
#define OUTPUT_FORM_HELP "window form: event, stream, itf (Informal\n" \
	"Trace Format) or canonical (SysMoBench's window\n" \
	"validation, a file per action; default: the\n" \
	"system's reference corpus form)"
#define OPT_OUTPUT_DIR(v, h) { .kind = OPT_KIND_CALLBACK, .short_name = 'o', \
	.long_name = "output", .value = OPT_FIELD(&(v)->dir, const char **), \
	.argh = "DIR", .cb = output_dir_option, .flags = OPT_UNRECORDED, .help = (h) }
#define OPT_OUTPUT_FORM(v, h) \
	OPT_CHOICE(0, "form", &(v)->form, "FORM", window_form_names, h)
#define OPT_OUTPUT_JSON(v) OPT_CHOICE(0, "json", &(v)->style, "STYLE", \
	json_style_names, "python (default), compact, or canonical (RFC 8785)")
/* -o's check: a name a corpus can take. */
int output_dir_option(const struct opt *o, const char *arg, struct cap_err *err);

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
/* The ring options' rows, filling the struct ring_options @v. */
#define OPT_RING(v, target) \
	OPT_CALLBACK(0, "ring-bytes", &(v)->bytes, "N", ring_bytes_option, \
		     "ring-buffer size (power of two; default 1 MiB)"), \
	OPT_FLAG(0, "hold-ring", &(v)->hold, "read the ring buffer only after " \
		 target " exits\n(with a small --ring-bytes: tests loss accounting)")
int ring_bytes_option(const struct opt *o, const char *arg, struct cap_err *err);
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
