/* SPDX-License-Identifier: MIT */
/*
 * Command-line options several commands share, spelled and documented
 * once as rows (capture/parse-options.h) every table that takes them
 * includes.
 */
#ifndef CAPTURE_OPTIONS_H
#define CAPTURE_OPTIONS_H

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
 * --form and --json.  A command with a help of its own for --form (or
 * without -o) takes the rows one by one.
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
/* -o: not recorded in the manifest (verify names its own output). */
#define OPT_OUTPUT_DIR(v, h) { .kind = OPT_KIND_CALLBACK, .short_name = 'o', \
	.long_name = "output", .value = OPT_FIELD(&(v)->dir, const char **), \
	.argh = "DIR", .cb = output_dir_option, .flags = OPT_UNRECORDED, .help = (h) }
#define OPT_OUTPUT_FORM(v, h) \
	OPT_CHOICE(0, "form", &(v)->form, "FORM", window_form_names, h)
#define OPT_OUTPUT_JSON(v) OPT_CHOICE(0, "json", &(v)->style, "STYLE", \
	json_style_names, "python (default), compact, or canonical (RFC 8785)")
/* -o DIR: a name a corpus can take. */
int output_dir_option(const struct opt *o, const char *arg, struct cap_err *err);
/* The form and style of @o, the form of folder @f if --form was not given. */
struct output_format output_format_for(const struct output_options *o,
				       const struct folder *f);

/*
 * The eBPF commands' ring-buffer options (capture go, probe, the raft
 * systems' eBPF driver and etcd's --live): --ring-bytes N (a power of
 * two of at least 4096; 0: the engine's default) and --hold-ring.
 */
struct ring_options {
	unsigned long bytes;
	int hold;
};
/* Their rows, filling the struct ring_options @v; @target: what runs under the probes. */
#define OPT_RING(v, target) \
	OPT_CALLBACK(0, "ring-bytes", &(v)->bytes, "N", ring_bytes_option, \
		     "ring-buffer size (power of two; default 1 MiB)"), \
	OPT_FLAG(0, "hold-ring", &(v)->hold, "read the ring buffer only after " \
		 target " exits\n(with a small --ring-bytes: tests loss accounting)")
int ring_bytes_option(const struct opt *o, const char *arg, struct cap_err *err);

/*
 * An option's argument read after the parse (what it means depends on
 * another option): dies with exit 2 naming the option and the value if it
 * is refused (opt_number(), opt_seconds()).
 */
long option_number(const char *arg, const char *name, long lo, long hi);
double option_seconds(const char *arg, const char *name, double max);

#endif
