// SPDX-License-Identifier: MIT
/*
 * Canonical window input (docs/canonical.md) converted back into its
 * traces: the input, split at lines "--" into a directory's part-N.ndjson
 * files (a run's action files), goes through `capture convert --form event
 * DIR OUT`.  Converted, OUT must hold exactly one file per trace_id of the
 * input, each loading back into that trace's windows in seq order; dead
 * (bad input, 3, naming the input; or 2, the system not told), OUT must
 * not exist and no temporary of it be left: all or nothing, and no name
 * from the input a path anywhere else.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/cli/command.h"
#include "capture/json.h"
#include "capture/proc.h"
#include "capture/window-read.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void fail(const char *why, const char *what)
{
	fprintf(stderr, "fuzz: %s%s\n", why, what ? what : "");
	abort();
}

/* The entries of @dir (dot files too); -1 if it is not there. */
static long entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Nothing named after @out beside it: no OUT, no OUT.tmp-*. */
static void nothing_written(const char *out)
{
	char *copy = xstrdup(out), *slash = strrchr(copy, '/');
	const char *base = slash + 1;
	DIR *d;
	struct dirent *e;

	*slash = 0;
	d = opendir(copy);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, base, strlen(base)))
			fail("a refused conversion left ", e->d_name);
	if (d)
		closedir(d);
	free(copy);
}

/* OUT holds each trace of @in's windows, and nothing else. */
static void check_out(const char *in, const char *out)
{
	struct window_set ws = { 0 };
	const struct window **all;
	size_t n = 0, traces = 0;

	window_set_add(&ws, in);
	for (size_t f = 0; f < ws.n; f++)
		n += ws.files[f].n;
	all = xcalloc(n + 1, sizeof(*all));
	n = 0;
	for (size_t f = 0; f < ws.n; f++)
		for (size_t i = 0; i < ws.files[f].n; i++)
			all[n++] = &ws.files[f].w[i];
	qsort(all, n, sizeof(*all), window_trace_order);
	for (size_t i = 0; i < n;) {
		char *path = xasprintf("%s/%s.ndjson", out, all[i]->trace);
		struct window_file wf;
		size_t k = 0;

		window_file_load(&wf, path, path);
		for (; k < wf.n && i + k < n && !strcmp(all[i + k]->trace, all[i]->trace); k++)
			if (strcmp(wf.w[k].action, all[i + k]->action) ||
			    !fuzz_same_json(wf.w[k].data, all[i + k]->data) ||
			    !fuzz_same_json(wf.w[k].pre, all[i + k]->pre) ||
			    !fuzz_same_json(wf.w[k].post, all[i + k]->post))
				fail("a window differs in ", path);
		if (k != wf.n || (i + k < n && !strcmp(all[i + k]->trace, all[i]->trace)))
			fail("the window count differs in ", path);
		window_file_free(&wf);
		free(path);
		i += k;
		traces++;
	}
	if (entries(out) != (long)traces)
		fail("OUT holds another file than the traces' in ", out);
	free(all);
	window_set_free(&ws);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char *in, *out;
	char *argv[] = { "convert", "--form", "event", NULL, NULL, NULL };

	if (setjmp(fuzz_jmp)) {
		nothing_written(out);
		return fuzz_died(FUZZ_CODE(EXIT_BAD_INPUT) | FUZZ_CODE(EXIT_USAGE));
	}
	free(in);
	in = xstrdup(fuzz_input_parts(data, size, ".ndjson"));
	free(out);
	out = xasprintf("%s.out", in);
	remove_tree(out);
	argv[3] = in;
	argv[4] = out;
	optind = 0;
	cmd_convert(5, argv);
	check_out(in, out);
	remove_tree(out);
	return 0;
}
