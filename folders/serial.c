// SPDX-License-Identifier: MIT
/* The serial event channel's reader (serial.h). */
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "serial.h"

struct serial {
	struct line_reader *in;
	const struct serial_ops *ops;
	void *ctx;
	cJSON *ev;        /* the event being read: reachable when a check dies */
	long long nevents;
	long long next_seq;
	int begun, ended;
};

/* One JSON object and nothing after it but blanks. */
static cJSON *parse_event(struct serial *s, const char *text)
{
	const char *end = NULL, *why;
	cJSON *v = cJSON_ParseWithOpts(text, &end, 0);

	if (!v || !cJSON_IsObject(v) || strspn(end, " \t\r") != strlen(end)) {
		cJSON_Delete(v);
		die_at(EXIT_BAD_INPUT, s->in->path, s->in->line,
		       "malformed event (not one JSON object)");
	}
	if ((why = json_check_record(v))) {
		cJSON_Delete(v);
		die_at(EXIT_BAD_INPUT, s->in->path, s->in->line, "%s", why);
	}
	return v;
}

/* seq counts from 0 and may wrap modulo 100 (the Asterinas emitter). */
static void check_seq(struct serial *s, long long seq)
{
	long long want = s->next_seq;

	if (seq != want && !(want == 100 && seq == 0))
		die_at(EXIT_CAPTURE_FAILED, s->in->path, s->in->line,
		       "seq %lld where %lld was due: events were lost", seq,
		       want % 100 == 0 && want ? 0 : want);
	s->next_seq = seq + 1;
}

static void on_event(struct serial *s, const char *text)
{
	if (!s->begun)
		die_at(EXIT_BAD_INPUT, s->in->path, s->in->line,
		       "event before the CAPTURE BEGIN marker");
	if (s->ended)
		die_at(EXIT_CHECK_FAILED, s->in->path, s->in->line,
		       "event after the CAPTURE END marker");
	s->ev = parse_event(s, text);
	check_seq(s, ndjson_natural(s->in, s->ev, "seq"));
	s->nevents++;
	s->ops->event(s->ctx, s->ev);
	cJSON_Delete(s->ev);
	s->ev = NULL;
}

static void on_begin(struct serial *s)
{
	if (s->begun)
		die_at(EXIT_CHECK_FAILED, s->in->path, s->in->line,
		       "a second CAPTURE BEGIN marker");
	s->begun = 1;
	s->ops->begin(s->ctx);
}

static void on_end(struct serial *s, const char *count)
{
	char *end;
	long long n = strtoll(count, &end, 10);

	if (!s->begun || s->ended)
		die_at(EXIT_CHECK_FAILED, s->in->path, s->in->line,
		       "CAPTURE END without a CAPTURE BEGIN before it");
	if (end == count || n < 0)
		die_at(EXIT_BAD_INPUT, s->in->path, s->in->line,
		       "CAPTURE END needs the number of events");
	if (n != s->nevents)
		die_at(EXIT_CAPTURE_FAILED, s->in->path, s->in->line,
		       "the emitter wrote %lld events, the stream has %lld: "
		       "%lld lost", n, s->nevents, n - s->nevents);
	s->ops->end(s->ctx);
	s->ended = 1;
}

long long serial_read(struct line_reader *in, const char *path, const char *as,
		      const struct serial_ops *ops, void *ctx)
{
	struct serial s = { .in = in, .ops = ops, .ctx = ctx };
	const char *line, *p;

	line_reader_open_as(in, path, as);
	while ((line = line_reader_next(in))) {
		if ((p = strstr(line, "{\"seq\"")))
			on_event(&s, p);
		else if (strstr(line, "CAPTURE BEGIN"))
			on_begin(&s);
		else if ((p = strstr(line, "CAPTURE END")))
			on_end(&s, p + strlen("CAPTURE END"));
	}
	if (!s.begun)
		die_at(EXIT_CAPTURE_FAILED, in->path, in->line,
		       "no CAPTURE BEGIN marker: not a %s capture, or nothing "
		       "was captured", ops->system);
	if (!s.ended)
		die_at(EXIT_CAPTURE_FAILED, in->path, in->line,
		       "stream ends without the CAPTURE END marker (truncated "
		       "after %lld events)", s.nevents);
	line_reader_close(in);
	return s.nevents;
}
