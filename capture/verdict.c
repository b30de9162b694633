// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>
#include <cJSON.h>
#include "json.h"
#include "verdict.h"

char *verdict_room(struct verdict_lines *l, size_t *room)
{
	*room = sizeof(l->buf) - l->len;
	return l->buf + l->len;
}

int verdict_got(struct verdict_lines *l, size_t n, size_t *len,
		struct cap_err *err)
{
	char *nl;

	l->len += n;
	nl = memchr(l->buf, '\n', l->len);
	/* Lockstep: before its next window, the grader has nothing more to say. */
	if (nl && (size_t)(nl + 1 - l->buf) < l->len)
		return cap_fail(err, EXIT_BAD_INPUT, "wrote more than one line "
				"for this window");
	if (nl) {
		*len = (size_t)(nl - l->buf);
		return 1;
	}
	if (l->len == sizeof(l->buf))
		return cap_fail(err, EXIT_BAD_INPUT, "answered this window with "
				"a line longer than %d bytes", VERDICT_LINE_MAX);
	return 0;
}

void verdict_done(struct verdict_lines *l)
{
	l->len = 0;
}

/* Why @v, parsed from a line up to @end, is no verdict: into @why, or 0. */
static int not_a_verdict(char why[160], const cJSON *v, const char *end,
			 const char *stop)
{
	const char *key, *bad;

	while (end < stop && strchr(" \t\r", *end))
		end++;
	if (!v)
		return snprintf(why, 160, "not JSON");
	if (end < stop)
		return snprintf(why, 160, "more after the JSON object");
	if (!cJSON_IsObject(v))
		return snprintf(why, 160, "not a JSON object");
	if ((key = json_repeated_key(v)))
		return snprintf(why, 160, "the key \"%.60s\" twice", key);
	if ((bad = json_check_record(v)))
		return snprintf(why, 160, "%s", bad);
	if (!cJSON_IsBool(json_get(v, "ok")) && !json_get(v, "unscoreable"))
		return snprintf(why, 160, "neither {\"ok\": true|false} nor "
				"{\"unscoreable\": ...}");
	return 0;
}

/* @line's first 80 bytes as a message shows them: controls as '?'. */
static void shown(char out[81], const char *line, size_t len)
{
	size_t n = len < 80 ? len : 80;

	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)line[i] < 0x20 || line[i] == 0x7f ? '?' :
			 line[i];
	out[n] = '\0';
}

int verdict_parse(const char *line, size_t len, enum verdict *d, char **why,
		  struct cap_err *err)
{
	const char *end = line, *text;
	cJSON *v = NULL;
	char head[81], reason[160] = "a NUL byte in it";
	int bad = 1;

	/* cJSON stops at a NUL: what follows it would go unread. */
	if (!memchr(line, '\0', len)) {
		v = cJSON_ParseWithLengthOpts(line, len, &end, 0);
		bad = not_a_verdict(reason, v, end, line + len);
	}
	if (bad) {
		cJSON_Delete(v);
		shown(head, line, len);
		return cap_fail(err, EXIT_BAD_INPUT, "answered this window with "
				"\"%s\"%s, not a verdict: %s", head,
				len > 80 ? "..." : "", reason);
	}
	if (cJSON_IsBool(json_get(v, "ok"))) {
		*d = cJSON_IsTrue(json_get(v, "ok")) ? VERDICT_PASS : VERDICT_FAIL;
		text = json_get_str(v, "why");
	} else {
		*d = VERDICT_UNSCOREABLE;
		text = cJSON_IsString(json_get(v, "unscoreable")) ?
		       json_get(v, "unscoreable")->valuestring : NULL;
	}
	*why = xstrdup(text ? text : "");
	cJSON_Delete(v);
	return 0;
}
