// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "err.h"
#include "json.h"
#include "options.h"
#include "system.h"

/*
 * A corpus is swapped in as the last component of -o: "", "/", "." and
 * ".." (after trailing slashes) name no such component, and the rename
 * would fail only after the whole run; "-", standard output by
 * convention, holds no corpus.  Refused before any work.
 */
static int check_output_dir(const char *arg, struct cap_err *err)
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
		return cap_fail(err, EXIT_USAGE, "-o '%s': not a name a corpus "
				"can take (give a new or corpus directory, e.g. "
				"-o out)", arg);
	return 0;
}

int output_dir_option(const struct opt *o, const char *arg, struct cap_err *err)
{
	if (check_output_dir(arg, err))
		return -1;
	*(const char **)o->value = arg;
	return 0;
}

struct output_format output_format_for(const struct output_options *o,
				       const struct folder *f)
{
	struct output_format fmt = {
		.form = o->form >= 0 ? (enum window_form)o->form : f->form,
		.style = o->style >= 0 ? (enum json_style)o->style : JSON_PYTHON,
	};
	return fmt;
}

long option_number(const char *arg, const char *name, long lo, long hi)
{
	struct cap_err err;
	long v;

	if (opt_number(arg, name, lo, hi, &v, &err))
		die_err(&err);
	return v;
}

double option_seconds(const char *arg, const char *name, double max)
{
	struct cap_err err;
	double v;

	if (opt_seconds(arg, name, max, &v, &err))
		die_err(&err);
	return v;
}

int ring_bytes_option(const struct opt *o, const char *arg, struct cap_err *err)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 0);

	if (*end || v < 4096 || (v & (v - 1)))
		return cap_fail(err, EXIT_USAGE, "--ring-bytes %s: a power of two "
				"of at least 4096", arg);
	*(unsigned long *)o->value = v;
	return 0;
}
