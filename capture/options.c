// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json.h"
#include "options.h"
#include "system.h"

/*
 * Where each argument of an option the manifest leaves out (-o/--output,
 * -j/--jobs) lies in argv: in its own element (-o DIR, --out DIR) or
 * inside the option's (-oDIR, --outp=DIR).  command_argv() drops exactly
 * those elements, whatever spelling or abbreviation getopt accepted.
 */
#define MAX_UNRECORDED 8
static const char *unrecorded[MAX_UNRECORDED];
static int n_unrecorded;

void option_unrecorded(const char *arg)
{
	if (n_unrecorded == MAX_UNRECORDED)
		die(EXIT_USAGE, "more than %d output and job options", MAX_UNRECORDED);
	unrecorded[n_unrecorded++] = arg;
}

void option_unrecorded_clear(void)
{
	n_unrecorded = 0;
}

/*
 * A corpus is swapped in as the last component of -o: "", "/", "." and
 * ".." (after trailing slashes) name no such component, and the rename
 * would fail only after the whole run; "-", standard output by
 * convention, holds no corpus.  Refused before any work.
 */
static void check_output_dir(const char *arg)
{
	size_t n = strlen(arg);
	const char *last;

	while (n > 1 && arg[n - 1] == '/')
		n--;
	last = memrchr(arg, '/', n);
	last = last ? last + 1 : arg;
	n -= (size_t)(last - arg);
	if (!n || (last[0] == '/' && n == 1) || (n == 1 && last[0] == '.') ||
	    (n == 2 && !strncmp(last, "..", 2)) || !strcmp(arg, "-"))
		die(EXIT_USAGE, "-o '%s': not a name a corpus can take (give a "
		    "new or corpus directory, e.g. -o out)", arg);
}

int output_option(int opt, const char *arg, struct output_options *o)
{
	switch (opt) {
	case 'o':
		check_output_dir(arg);
		option_unrecorded(arg);
		o->dir = arg;
		return 1;
	case 'F':
		o->form = window_form_parse(arg);
		if (o->form < 0)
			die(EXIT_USAGE, "--form: expected event, stream, itf or canonical, "
			    "not '%s'", arg);
		o->form_arg = arg;
		return 1;
	case 'J':
		o->style_arg = arg;
		o->style = json_style_parse(arg);
		if (o->style < 0)
			die(EXIT_USAGE, "--json: expected python, compact or canonical, not '%s'", arg);
		return 1;
	}
	return 0;
}

struct output_format output_format_for(const struct output_options *o,
				       const struct folder *f)
{
	struct output_format fmt = {
		.form = o->form >= 0 ? (enum window_form)o->form : f->form,
		.style = o->style,
	};
	return fmt;
}

void usage(const char *text, int help)
{
	fputs(text, help ? stdout : stderr);
	exit(help ? EXIT_OK : EXIT_USAGE);
}

/* 1 if @arg is an unrecorded option's own element, 2 if it is inside @arg. */
static int unrecorded_in(const char *arg)
{
	uintptr_t start = (uintptr_t)arg, end = start + strlen(arg);

	for (int i = 0; i < n_unrecorded; i++) {
		uintptr_t at = (uintptr_t)unrecorded[i];

		if (at == start)
			return 1;
		if (at > start && at <= end)
			return 2;
	}
	return 0;
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
	if (dropped != n_unrecorded)
		die(EXIT_CAPTURE_FAILED, "cannot tell the output and job options "
		    "apart in the command line");
	return a;
}

long option_number(const char *arg, const char *name, long lo, long hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v < lo || v > hi)
		die(EXIT_USAGE, "%s %s: expected a number from %ld to %ld", name,
		    arg, lo, hi);
	return v;
}

unsigned long long option_unsigned(const char *arg, const char *name)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (end == arg || *end || *arg == '-')
		die(EXIT_USAGE, "%s %s: expected an unsigned integer", name, arg);
	return v;
}

double option_seconds(const char *arg, const char *name, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v > 0) || v > max)
		die(EXIT_USAGE, "%s %s: expected a number of seconds above 0, at most %.0f",
		    name, arg, max);
	return v;
}

static unsigned long ring_bytes(const char *arg)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 0);

	if (*end || v < 4096 || (v & (v - 1)))
		die(EXIT_USAGE, "--ring-bytes %s: a power of two of at least 4096", arg);
	return v;
}

int ring_option(int opt, const char *arg, struct ring_options *r)
{
	if (opt == OPT_RING_BYTES)
		r->bytes = ring_bytes(arg);
	else if (opt == OPT_HOLD_RING)
		r->hold = 1;
	else
		return 0;
	return 1;
}
