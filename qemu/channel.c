// SPDX-License-Identifier: MIT
/* The checks of a guest's channels once it has ended (channel.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/proc.h"
#include "channel.h"

/*
 * The event channel must read "CAPTURE BEGIN <name>", lines, then
 * "CAPTURE END <count>" with count the number of lines between them; or
 * end in "CAPTURE ERROR <why>", the guest refusing its input.
 */
char *channel_check(const char *path, char **error)
{
	size_t len;
	char *text = read_file(path, &len);
	char *line, *save = NULL, *problem = NULL;
	long lines = 0, count = -1;
	int begun = 0, ended = 0;

	if (!text)
		return xasprintf("the guest wrote nothing to its event channel");
	if (memchr(text, '\0', len))
		problem = xasprintf("the event channel holds NUL bytes");
	else if (len && text[len - 1] != '\n')
		problem = xasprintf("the event channel ends in the middle of a line");
	for (line = strtok_r(text, "\n", &save); line && !problem;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!begun) {
			begun = !strncmp(line, "CAPTURE BEGIN ", 14);
			if (!begun)
				problem = xasprintf("the event channel does not start with CAPTURE BEGIN");
		} else if (ended) {
			problem = xasprintf("output after CAPTURE END");
		} else if (!strncmp(line, "CAPTURE ERROR ", 14)) {
			*error = xstrdup(line + 14);
			ended = 1;
		} else if (sscanf(line, "CAPTURE END %ld", &count) == 1) {
			ended = 1;
		} else {
			lines++;
		}
	}
	if (!problem && !begun)
		problem = xasprintf("the guest wrote nothing to its event channel");
	else if (!problem && !ended)
		problem = xasprintf("the event channel stops after %ld events without CAPTURE END",
				    lines);
	else if (!problem && !*error && count != lines)
		problem = xasprintf("the guest reported %ld events but %ld arrived",
				    count, lines);
	free(text);
	return problem;
}

/*
 * The trace channel's bytes are binary and decoded later (the caller's
 * job); here only whether the guest got to the end of them.
 */
char *channel_check_trace(const char *path)
{
	static const char end[] = "CAPTURE TRACE END ";
	size_t len, n = 0;
	char *data = read_file(path, &len), *problem = NULL;

	if (!data || !len) {
		free(data);
		return xasprintf("the guest wrote nothing to its trace channel");
	}
	/* It ends in "CAPTURE TRACE END <digits>\n", right after binary pages. */
	if (data[len - 1] == '\n')
		for (n = 1; n < len && data[len - 1 - n] >= '0' &&
			    data[len - 1 - n] <= '9'; n++)
			;
	if (n < 2 || len < n + strlen(end) ||
	    memcmp(data + len - n - strlen(end), end, strlen(end)))
		problem = xasprintf("the trace channel stops without CAPTURE TRACE END");
	free(data);
	return problem;
}
