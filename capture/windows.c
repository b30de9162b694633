// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "die.h"
#include "proc.h"
#include "windows.h"

/* The canonical form's file of one action, with its windows so far. */
struct canonical_file {
	char *action, *rel;
	FILE *f;
	long n;
};

/*
 * The canonical form's files: a corpus's, one per action (kept by the
 * corpus, as its runs share them), or convert's one stream for all.
 */
struct canonical_set {
	struct corpus *corpus;       /* NULL: every action onto @one */
	char *system;
	enum json_style style;
	struct canonical_file one;
	struct canonical_file *files;
	size_t n;
};

struct window_writer {
	struct corpus *corpus;
	struct canonical_set *canon; /* canonical form (NULL: writing nothing) */
	const char *trace;           /* canonical form: the run */
	const char *const *actor;    /* the data keys naming the actor */
	char *rel;
	FILE *f;            /* NULL when only checking */
	struct output_format fmt;
	cJSON *state;       /* current state: the next window's pre-state */
	cJSON *counts;      /* action -> windows */
	struct strbuf line;
	struct itf_writer *itf; /* ITF form: the trace's state */
	long n;             /* windows added */
	window_observer *observe;
	void *observer;
};

const char *window_file_ext(enum window_form form)
{
	return form == FORM_ITF ? ".itf.json" : ".ndjson";
}

const char *const window_form_names[] = {
	[FORM_EVENT] = "event", [FORM_STREAM] = "stream",
	[FORM_ITF] = "itf", [FORM_CANONICAL] = "canonical", NULL,
};

const char *window_form_name(enum window_form form)
{
	return window_form_names[form];
}

static void canonical_close(void *ctx)
{
	struct canonical_set *cs = ctx;

	for (size_t i = 0; i < cs->n; i++) {
		corpus_close(cs->corpus, cs->files[i].f, cs->files[i].rel);
		free(cs->files[i].action);
		free(cs->files[i].rel);
	}
	free(cs->files);
	free(cs->system);
	free(cs);
}

/* The corpus's canonical files, begun by its first run. */
static struct canonical_set *canonical_of(struct corpus *c, const char *system,
					  enum json_style style)
{
	struct canonical_set *cs = corpus_shared(c);

	if (!cs) {
		cs = xcalloc(1, sizeof(*cs));
		cs->corpus = c;
		cs->system = xstrdup(system);
		cs->style = style;
		corpus_set_shared(c, cs, canonical_close);
	}
	return cs;
}

/*
 * The file of @action's windows, opened at its first.  An action name
 * becomes a file name: one that cannot be is refused.
 */
static struct canonical_file *canonical_file(struct window_writer *w,
					     const char *action)
{
	struct canonical_set *cs = w->canon;
	struct canonical_file *cf;

	if (!cs->corpus)
		return &cs->one;
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->files[i].action, action))
			return &cs->files[i];
	if (file_name_refused(action))
		die_at(EXIT_BAD_INPUT, w->rel, 0, "action \"%s\" cannot name "
		       "a canonical window file: %s", action,
		       file_name_refused(action));
	cs->files = xrealloc(cs->files, (cs->n + 1) * sizeof(*cs->files));
	cf = &cs->files[cs->n++];
	cf->action = xstrdup(action);
	cf->rel = xasprintf("%s/%s.ndjson", cs->system, action);
	cf->f = corpus_create(cs->corpus, cf->rel);
	cf->n = 0;
	return cf;
}

int windows_canonical_style(const struct corpus *c, enum json_style *st)
{
	const struct canonical_set *cs = corpus_shared(c);

	if (cs)
		*st = cs->style;
	return cs != NULL;
}

/* The actor: the first of the @actor keys that @data holds. */
static cJSON *actor_of(const char *const *actor, const cJSON *data)
{
	for (const char *const *k = actor; k && *k; k++)
		if (json_get(data, *k))
			return json_dup(json_get(data, *k));
	return json_null();
}

cJSON *windows_canonical_record(long window_id, const char *trace, long seq,
				const char *action, const char *const *actor,
				cJSON *pre, cJSON *post, cJSON *input)
{
	cJSON *rec = json_obj();

	json_add(rec, "window_id", json_int(window_id));
	json_add(rec, "trace_id", json_str(trace));
	json_add(rec, "seq", json_int(seq));
	json_add(rec, "action", json_str(action));
	json_add(rec, "actor", actor_of(actor, input));
	cJSON_AddItemReferenceToObject(rec, "pre_state", pre);
	cJSON_AddItemReferenceToObject(rec, "post_state", post);
	cJSON_AddItemReferenceToObject(rec, "input", input);
	return rec;
}

/*
 * One canonical record; pre, post and input are the writer's own values,
 * referenced rather than copied.  Returns the file it went to.
 */
static struct canonical_file *emit_canonical(struct window_writer *w,
					     const char *action,
					     cJSON *data, cJSON *post)
{
	struct canonical_file *cf = canonical_file(w, action);
	cJSON *rec = windows_canonical_record(++cf->n, w->trace, w->n + 1,
					      action, w->actor, w->state,
					      post, data);

	strbuf_reset(&w->line);
	json_write(&w->line, rec, w->fmt.style);
	strbuf_add(&w->line, "\n", 1);
	fwrite(w->line.buf, 1, w->line.len, cf->f);
	cJSON_Delete(rec);
	return cf;
}

static void emit(struct window_writer *w, const cJSON *v)
{
	if (!w->f)
		return;
	strbuf_reset(&w->line);
	json_write(&w->line, v, w->fmt.style);
	strbuf_add(&w->line, "\n", 1);
	fwrite(w->line.buf, 1, w->line.len, w->f);
}

/* A value of the run that ITF cannot write is a bad window: say which. */
static void itf_failed(const struct window_writer *w, long state,
		       const struct itf_error *e)
{
	die_at(EXIT_BAD_INPUT, w->rel, 0, "state %ld: no ITF form: %s", state,
	       e->msg);
}

/* ITF: the trace's head and state 0, written as the file opens. */
static void itf_open(struct window_writer *w, const struct itf_head *h)
{
	struct itf_error e;

	w->itf = itf_writer_new(h, w->state);
	strbuf_reset(&w->line);
	if (itf_writer_open(w->itf, &w->line, w->fmt.style, &e))
		itf_failed(w, 0, &e);
	fwrite(w->line.buf, 1, w->line.len, w->f);
}

static struct window_writer *writer(struct corpus *c, const char *rel,
				    FILE *f, struct output_format fmt,
				    const cJSON *initial,
				    const struct itf_head *itf)
{
	struct window_writer *w = xcalloc(1, sizeof(*w));

	w->corpus = c;
	w->rel = xstrdup(rel);
	w->f = f;
	w->fmt = fmt;
	w->state = json_dup(initial);
	w->counts = json_obj();
	if (fmt.form == FORM_STREAM) {
		cJSON *seed = json_obj();

		json_add(seed, "state", json_dup(initial));
		emit(w, seed);
		cJSON_Delete(seed);
	}
	if (fmt.form == FORM_ITF && f)
		itf_open(w, itf);
	if (fmt.form == FORM_CANONICAL) {
		w->trace = itf->run;
		w->actor = itf->actor;
		if (c) {
			w->canon = canonical_of(c, itf->system, fmt.style);
		} else if (f) {
			w->canon = xcalloc(1, sizeof(*w->canon));
			w->canon->one.f = f;
		}
	}
	return w;
}

struct window_writer *windows_open(struct corpus *c, const char *rel,
				   struct output_format fmt,
				   const cJSON *initial,
				   const struct itf_head *itf)
{
	int own_file = c && fmt.form != FORM_CANONICAL;

	return writer(c, rel, own_file ? corpus_create(c, rel) : NULL, fmt,
		      initial, itf);
}

struct window_writer *windows_open_file(FILE *f, const char *name,
					struct output_format fmt,
					const cJSON *initial,
					const struct itf_head *itf)
{
	return writer(NULL, name, f, fmt, initial, itf);
}

/*
 * The window {"action", "data", "pre_state", "post_state"} (event form) or
 * {"action", "data", "state"}, written member by member rather than built
 * and copied; RFC 8785 puts post_state before pre_state.
 */
static void emit_window(struct window_writer *w, const char *action,
			const cJSON *data, const cJSON *post)
{
	enum json_style st = w->fmt.style;
	cJSON name = { .type = cJSON_String, .valuestring = (char *)action };
	struct strbuf *sb = &w->line;

	if (!w->f)
		return;
	strbuf_reset(sb);
	if (w->itf) {
		struct itf_error e;

		if (itf_writer_state(w->itf, sb, action, data, post, st, &e))
			itf_failed(w, w->n + 1, &e);
		fwrite(sb->buf, 1, sb->len, w->f);
		return;
	}
	strbuf_add(sb, "{", 1);
	json_write_member(sb, "action", &name, 1, st);
	json_write_member(sb, "data", data, 0, st);
	if (w->fmt.form == FORM_STREAM) {
		json_write_member(sb, "state", post, 0, st);
	} else if (st == JSON_CANONICAL) {
		json_write_member(sb, "post_state", post, 0, st);
		json_write_member(sb, "pre_state", w->state, 0, st);
	} else {
		json_write_member(sb, "pre_state", w->state, 0, st);
		json_write_member(sb, "post_state", post, 0, st);
	}
	strbuf_add(sb, "}\n", 2);
	fwrite(sb->buf, 1, sb->len, w->f);
}

void windows_observe(struct window_writer *w, window_observer *fn, void *ctx)
{
	w->observe = fn;
	w->observer = ctx;
}

const cJSON *windows_never_completing(struct window_writer *w,
				      const char *action, const cJSON *data)
{
	struct window call = {
		.file = w->rel, .action = action, .data = data, .pre = w->state,
	};

	if (w->observe)
		w->observe(w->observer, &call);
	return w->state;
}

void windows_add(struct window_writer *w, const char *action, cJSON *data,
		 cJSON *post)
{
	struct canonical_file *cf = NULL;

	if (w->canon)
		cf = emit_canonical(w, action, data, post);
	else
		emit_window(w, action, data, post);
	w->n++;
	if (w->observe) {
		/*
		 * the line it is on in the file: a stream starts with its
		 * seed; in ITF, where all is one line, its state's index; in
		 * the canonical form, its action's file and window_id
		 */
		struct window seen = {
			.file = cf && cf->rel ? cf->rel : w->rel,
			.line = cf ? cf->n : w->n + (w->fmt.form == FORM_STREAM),
			.action = action, .data = data, .pre = w->state,
			.post = post,
		};

		w->observe(w->observer, &seen);
	}
	cJSON_Delete(w->state);
	cJSON_Delete(data);
	w->state = post;
	json_count(w->counts, action, 1);
}

void windows_close(struct window_writer *w, cJSON *counts)
{
	const cJSON *c;

	if (w->itf) {
		strbuf_reset(&w->line);
		itf_writer_close(w->itf, &w->line, w->fmt.style);
		fwrite(w->line.buf, 1, w->line.len, w->f);
		itf_writer_free(w->itf);
	}
	if (w->f && w->corpus)
		corpus_close(w->corpus, w->f, w->rel);
	if (w->canon && !w->canon->corpus)
		free(w->canon);
	cJSON_ArrayForEach(c, w->counts)
		json_count(counts, c->string, (long long)c->valuedouble);
	cJSON_Delete(w->counts);
	cJSON_Delete(w->state);
	strbuf_release(&w->line);
	free(w->rel);
	free(w);
}

struct event_writer {
	struct corpus *corpus;
	char *rel;
	FILE *f;
	long n;
	struct strbuf line;
};

struct event_writer *events_open(struct corpus *c, const char *rel)
{
	struct event_writer *e = xcalloc(1, sizeof(*e));

	e->corpus = c;
	e->rel = xstrdup(rel);
	e->f = c ? corpus_create(c, rel) : NULL;
	return e;
}

void events_add(struct event_writer *e, const cJSON *event)
{
	e->n++;
	if (!e->f)
		return;
	strbuf_reset(&e->line);
	json_write(&e->line, event, JSON_COMPACT);
	strbuf_add(&e->line, "\n", 1);
	fwrite(e->line.buf, 1, e->line.len, e->f);
}

void events_add_line(struct event_writer *e, const char *line, size_t len)
{
	e->n++;
	if (e->f)
		fwrite(line, 1, len, e->f);
}

long events_close(struct event_writer *e)
{
	long n = e->n;

	if (e->f)
		corpus_close(e->corpus, e->f, e->rel);
	strbuf_release(&e->line);
	free(e->rel);
	free(e);
	return n;
}

int window_is_identity(const struct window *w)
{
	return cJSON_Compare(w->pre, w->post, 1);
}
