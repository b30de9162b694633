// SPDX-License-Identifier: MIT
/*
 * The window reader (capture/window-read.h), event, stream and (input
 * starting "ITF\n") ITF form.  A
 * file it loads must survive `capture convert` to event form and then to
 * stream form: each one loads again into the same windows (compared as
 * compact JSON).  Deaths are bad input (3) naming the file.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/cli/command.h"
#include "capture/json.h"
#include "capture/window-read.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void same_windows(const struct window_file *a,
			 const struct window_file *b, const char *form)
{
	const char *why = a->n != b->n ? "window count" : NULL;

	for (size_t i = 0; i < a->n && !why; i++) {
		const struct window *x = &a->w[i], *y = &b->w[i];

		if (strcmp(x->action, y->action))
			why = "action";
		else if (!fuzz_same_json(x->data, y->data))
			why = "data";
		else if (!fuzz_same_json(x->pre, y->pre))
			why = "pre_state";
		else if (!fuzz_same_json(x->post, y->post))
			why = "post_state";
	}
	if (why) {
		fprintf(stderr, "fuzz: converted to %s form, %s differs\n",
			form, why);
		abort();
	}
}

/* `capture convert --form @form --json compact @in @out`, loaded back. */
static void convert(const struct window_file *orig, const char *in,
		    const char *out, const char *form)
{
	char *argv[] = { "convert", "--form", (char *)form, "--json",
			 "compact", (char *)in, (char *)out, NULL };
	struct window_file again;

	optind = 0;
	cmd_convert(7, argv);
	window_file_load(&again, out, out);
	same_windows(orig, &again, form);
	window_file_free(&again);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* "ITF\n" first: the rest is an ITF trace (read by its file name) */
	int itf = size >= 4 && !memcmp(data, "ITF\n", 4);
	const char *path = itf ? fuzz_input("in.itf.json", data + 4, size - 4) :
				 fuzz_input("in.ndjson", data, size);
	static struct window_file wf;
	char *in = xstrdup(path), *event = xasprintf("%s.event", path),
	     *stream = xasprintf("%s.stream", path);

	if (setjmp(fuzz_jmp)) {
		free(in), free(event), free(stream);
		return fuzz_died(FUZZ_CODE(EXIT_BAD_INPUT));
	}
	window_file_load(&wf, in, in);
	convert(&wf, in, event, "event");
	/* A file whose windows do not chain has no stream form (exit 3). */
	convert(&wf, event, stream, "stream");
	window_file_free(&wf);
	free(in), free(event), free(stream);
	return 0;
}
