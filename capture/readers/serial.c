// SPDX-License-Identifier: MIT
/* The serial event channel's reader (serial.h). */
#include <stdlib.h>
#include <string.h>
#include "../err.h"
#include "../json.h"
#include "serial.h"

struct serial {
	struct line_reader *in;
	const struct serial_ops *ops;
	void *ctx;
	struct cap_err *err;
	cJSON *ev;        /* the event being read: reachable when a check dies */
	long long nevents;
	long long next_seq;
	int begun, ended;
};

/* The reader's failure at the line it is on. */
#define serial_fail(s, code, ...) \
	cap_fail_at((s)->err, code, (s)->in->path, (s)->in->line, __VA_ARGS__)

/* One JSON object and nothing after it but blanks, into s->ev. */
static int parse_event(struct serial *s, const char *text)
{
	const char *end = NULL, *why;
	cJSON *v = cJSON_ParseWithOpts(text, &end, 0);

	if (!v || !cJSON_IsObject(v) || strspn(end, " \t\r") != strlen(end)) {
		cJSON_Delete(v);
		return serial_fail(s, EXIT_BAD_INPUT,
				   "malformed event (not one JSON object)");
	}
	if ((why = json_check_record(v))) {
		cJSON_Delete(v);
		return serial_fail(s, EXIT_BAD_INPUT, "%s", why);
	}
	s->ev = v;
	return 0;
}

/* seq counts from 0 and may wrap modulo 100 (the Asterinas emitter). */
static int check_seq(struct serial *s)
{
	long long want = s->next_seq, seq;

	if (ndjson_try_natural(s->in, s->ev, "seq", &seq, s->err))
		return -1;
	if (seq != want && !(want == 100 && seq == 0))
		return serial_fail(s, EXIT_CAPTURE_FAILED,
				   "seq %lld where %lld was due: events were lost", seq,
				   want % 100 == 0 && want ? 0 : want);
	s->next_seq = seq + 1;
	return 0;
}

static int on_event(struct serial *s, const char *text)
{
	if (!s->begun)
		return serial_fail(s, EXIT_BAD_INPUT,
				   "event before the CAPTURE BEGIN marker");
	if (s->ended)
		return serial_fail(s, EXIT_CHECK_FAILED,
				   "event after the CAPTURE END marker");
	if (parse_event(s, text) || check_seq(s))
		return -1;
	s->nevents++;
	s->ops->event(s->ctx, s->ev);
	cJSON_Delete(s->ev);
	s->ev = NULL;
	return 0;
}

static int on_begin(struct serial *s)
{
	if (s->begun)
		return serial_fail(s, EXIT_CHECK_FAILED, "a second CAPTURE BEGIN marker");
	s->begun = 1;
	s->ops->begin(s->ctx);
	return 0;
}

static int on_end(struct serial *s, const char *count)
{
	char *end;
	long long n = strtoll(count, &end, 10);

	if (!s->begun || s->ended)
		return serial_fail(s, EXIT_CHECK_FAILED,
				   "CAPTURE END without a CAPTURE BEGIN before it");
	if (end == count || n < 0)
		return serial_fail(s, EXIT_BAD_INPUT,
				   "CAPTURE END needs the number of events");
	/* more events than the emitter says it wrote: nothing was lost, the
	 * count or the stream is wrong */
	if (n < s->nevents)
		return serial_fail(s, EXIT_BAD_INPUT,
				   "CAPTURE END counts %lld events, the stream has "
				   "%lld before it: the count disagrees with the "
				   "stream", n, s->nevents);
	if (n != s->nevents)
		return serial_fail(s, EXIT_CAPTURE_FAILED,
				   "the emitter wrote %lld events, the stream has %lld: "
				   "%lld lost", n, s->nevents, n - s->nevents);
	s->ops->end(s->ctx);
	s->ended = 1;
	return 0;
}

/*
 * A line that is a JSON object and no event, before the BEGIN marker: no
 * console writes one, a recorded or probed stream of events does (a
 * probe spec's, folded by the wrong system): refused at its first line,
 * not at the end as a capture without its marker.
 */
static int not_console(struct serial *s, const char *line)
{
	const char *end = NULL;
	cJSON *v;
	int object;

	line += strspn(line, " \t");
	if (*line != '{')
		return 0;
	v = cJSON_ParseWithOpts(line, &end, 0);
	object = v && cJSON_IsObject(v) && strspn(end, " \t\r") == strlen(end);
	cJSON_Delete(v);
	if (!object)
		return 0;
	return serial_fail(s, EXIT_BAD_INPUT,
			   "a JSON object where a console's output was due: not a %s "
			   "capture (another system's events?)", s->ops->system);
}

/* Each line of the stream to its handler; then the markers were both there. */
static int read_lines(struct serial *s)
{
	const char *line, *p;
	int rc = 0;

	while (!rc && !(rc = line_reader_try_next(s->in, &line, s->err)) && line) {
		if ((p = strstr(line, "{\"seq\"")))
			rc = on_event(s, p);
		else if (strstr(line, "CAPTURE BEGIN"))
			rc = on_begin(s);
		else if ((p = strstr(line, "CAPTURE END")))
			rc = on_end(s, p + strlen("CAPTURE END"));
		else if (!s->begun)
			rc = not_console(s, line);
	}
	if (rc)
		return -1;
	if (!s->begun)
		return serial_fail(s, EXIT_CAPTURE_FAILED,
				   "no CAPTURE BEGIN marker: not a %s capture, or nothing "
				   "was captured", s->ops->system);
	if (!s->ended)
		return serial_fail(s, EXIT_CAPTURE_FAILED,
				   "stream ends without the CAPTURE END marker (truncated "
				   "after %lld events)", s->nevents);
	return 0;
}

long long serial_read(struct line_reader *in, const char *path, const char *as,
		      const struct serial_ops *ops, void *ctx, struct cap_err *err)
{
	struct serial s = { .in = in, .ops = ops, .ctx = ctx, .err = err };
	int rc;

	if (line_reader_try_open_as(in, path, as, err))
		return -1;
	rc = read_lines(&s);
	cJSON_Delete(s.ev);
	line_reader_close(in);
	return rc ? -1 : s.nevents;
}
