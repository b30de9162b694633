// SPDX-License-Identifier: MIT
/*
 * The grader's verdict reader (capture/verdict.c) over one input: what a
 * grader wrote on its stdout, handed over in reads of a few sizes (the
 * first byte picks them), as capture grade reads its pipe.  The reader
 * returns its refusals and must not die.  Oracle: a line it takes is one
 * JSON object and nothing else, whose verdict cJSON reads the same; a
 * refusal is exit 3 saying what the grader did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>
#include "capture/json.h"
#include "capture/verdict.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static struct verdict_lines lines;

static _Noreturn void finding(const char *what, const char *line, size_t len)
{
	fprintf(stderr, "fuzz: %s: \"%.*s\"\n", what, (int)len, line);
	abort();
}

/* A line verdict_parse() took must be what cJSON reads whole. */
static void judge_taken(const char *line, size_t len, enum verdict d,
			const char *why)
{
	const char *end;
	cJSON *v = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	const cJSON *ok = json_get(v, "ok");

	if (memchr(line, '\0', len) || !cJSON_IsObject(v))
		finding("took a line that is not one JSON object", line, len);
	end += strspn(end, " \t\r");
	if (end < line + len)
		finding("took a line with more after its object", line, len);
	if (cJSON_IsBool(ok) ? d != (cJSON_IsTrue(ok) ? VERDICT_PASS :
				     VERDICT_FAIL) :
	    d != VERDICT_UNSCOREABLE || !json_get(v, "unscoreable"))
		finding("a verdict cJSON reads otherwise", line, len);
	if (!why)
		finding("no reason", line, len);
	cJSON_Delete(v);
}

static void judge_refused(struct cap_err *err)
{
	const char *msg = cap_err_text(err);

	if (err->code != EXIT_BAD_INPUT ||
	    (strncmp(msg, "answered this window", 20) &&
	     strncmp(msg, "wrote more than one line", 24))) {
		fprintf(stderr, "fuzz: refusal %d: %s\n", err->code, msg);
		abort();
	}
	cap_err_release(err);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t chunk, off = 1;

	fuzz_input("grader.out", data, size);
	if (setjmp(fuzz_jmp))
		return fuzz_died(0);
	if (!size)
		return 0;
	chunk = data[0] % 2 ? 1 + data[0] / 2 : sizeof(lines.buf);
	verdict_done(&lines);
	while (off < size) {
		struct cap_err err = { 0 };
		size_t room, n, len;
		char *to = verdict_room(&lines, &room), *why = NULL;
		enum verdict d;
		int got;

		n = size - off < chunk ? size - off : chunk;
		n = n < room ? n : room;
		memcpy(to, data + off, n);
		off += n;
		got = verdict_got(&lines, n, &len, &err);
		if (lines.len > sizeof(lines.buf))
			abort();
		if (got < 0) {
			judge_refused(&err);
			return 0;
		}
		if (!got)
			continue;
		if (verdict_parse(lines.buf, len, &d, &why, &err)) {
			judge_refused(&err);
			return 0;
		}
		judge_taken(lines.buf, len, d, why);
		free(why);
		verdict_done(&lines);
	}
	return 0;
}
