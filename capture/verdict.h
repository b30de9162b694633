/* SPDX-License-Identifier: MIT */
/*
 * A grader's verdicts (the protocol of capture grade, docs/audit.md): one
 * line on its stdout for each window it was sent, each line one JSON
 * object and nothing else -- {"ok": true}, {"ok": false, "why": "..."} or
 * {"unscoreable": "..."}.  What a grader writes is read into a buffer of
 * fixed size, so memory stays bounded however much it writes.
 */
#ifndef CAPTURE_VERDICT_H
#define CAPTURE_VERDICT_H

#include <stddef.h>
#include "err.h"

/* The longest verdict line, its '\n' not counted. */
#define VERDICT_LINE_MAX 65536

enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_UNSCOREABLE };

/* What the grader wrote and no line took yet. */
struct verdict_lines {
	char buf[VERDICT_LINE_MAX + 1];
	size_t len;
};

/* Where the next read goes: *@room bytes at the returned pointer (> 0). */
char *verdict_room(struct verdict_lines *l, size_t *room);
/*
 * After a read of @n bytes into verdict_room(): 1 when the buffer holds
 * one whole line (*@len its length without '\n'; verdict_done() drops
 * it), 0 when it needs more, -1 and @err (EXIT_BAD_INPUT) when the
 * grader wrote more than one line at once or a line too long.
 */
int verdict_got(struct verdict_lines *l, size_t n, size_t *len,
		struct cap_err *err);
void verdict_done(struct verdict_lines *l);

/*
 * Parse the verdict line @line (@len bytes, no '\n'): 0 with *@v and *@why
 * (the reason, "" if none; the caller frees it), or -1 and @err
 * (EXIT_BAD_INPUT: "answered with ..., not a verdict: why").
 */
int verdict_parse(const char *line, size_t len, enum verdict *v, char **why,
		  struct cap_err *err);

#endif
