// SPDX-License-Identifier: MIT
/*
 * The NDJSON reader, both ways of reading: records as JSON tokens
 * (ndjson_try_next_tokens(), which reports) and as cJSON trees
 * (ndjson_next(), which dies, exit 3 with file:line).  The tokenizer is
 * the stricter: a file it reads to the end, the cJSON reader must read
 * too, with as many records.
 */
#include <stdio.h>
#include <stdlib.h>
#include "capture/ndjson.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Records read as tokens; -1 if the reader reported an error. */
static long count_tokens(const char *path)
{
	struct line_reader r;
	struct strbuf text = STRBUF_INIT;
	struct json_tokens t = { 0 };
	struct ndjson_error e;
	long n = 0;
	int got;

	line_reader_open(&r, path);
	while ((got = ndjson_try_next_tokens(&r, &text, &t, &e)) > 0)
		n++;
	if (got < 0 && (e.line < 1 || e.line > r.line + 1)) {
		fprintf(stderr, "fuzz: error at line %ld of %ld: %s\n", e.line,
			r.line, e.msg);
		abort();
	}
	line_reader_close(&r);
	json_tokens_release(&t);
	strbuf_release(&text);
	return got < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *path = fuzz_input("in.ndjson", data, size);
	struct line_reader r;
	volatile long tokens;
	long n = 0;
	cJSON *v;

	tokens = count_tokens(path);
	if (setjmp(fuzz_jmp)) {
		if (tokens >= 0) {
			fprintf(stderr, "fuzz: the tokens reader read %ld "
				"records, ndjson_next() died\n", tokens);
			abort();
		}
		return fuzz_died(FUZZ_CODE(EXIT_BAD_INPUT));
	}
	line_reader_open(&r, path);
	while ((v = ndjson_next(&r))) {
		n++;
		cJSON_Delete(v);
	}
	line_reader_close(&r);
	if (tokens >= 0 && tokens != n) {
		fprintf(stderr, "fuzz: %ld records as tokens, %ld as cJSON\n",
			tokens, n);
		abort();
	}
	return 0;
}
