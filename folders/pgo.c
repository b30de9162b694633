// SPDX-License-Identifier: MIT
/* PGo recorder logs: per-file cursors merged by vector clock (see pgo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/ndjson-ahead.h"
#include "../capture/ndjson.h"
#include "../capture/proc.h"
#include "folder.h"
#include "pgo.h"

/* A csElements entry: its tokens a folder asks for (-1: none). */
struct pgo_element {
	int tag, name, index, value, old;
};

/* A key, and its length: members are matched by the million. */
struct key {
	const char *s;
	size_t n;
};
#define KEY(s) { s, sizeof(s) - 1 }

/* The record's members the merge reads (the first of each; -1: none). */
struct pgo_members {
	int archetype, self, clock, abort, cs;
};

/* One archetype instance: its log and the record at its head. */
struct pgo_file {
	char *path;
	struct line_reader r;
	struct strbuf first_text;  /* the first record, read to identify */
	struct json_tokens first;
	const struct strbuf *head_line_out;  /* the head's event line, if made */
	long *slot;        /* clock entry i named process slot[i] last time */
	size_t nslots;
	char *archetype, *self;
	size_t archetype_len, self_len;
	long self_num;
	int rank;          /* place in process order (process_cmp) */
	struct json_tokens *head;  /* NULL once the file is exhausted */
	struct pgo_members head_members;
	long head_line;
	int head_abort;
	long *clock;       /* head's clock, dense over the run's processes */
	long *prev;        /* clock of the record before the head */
	long sum;          /* sum of the head's clock: the tie-break */
	long emitted;      /* records taken from this file, aborts included */
};

struct pgo_merge {
	struct pgo_file *files;
	size_t n;
	long aborted, committed;
	struct ndjson_ahead *ahead;  /* reads every file's records after the first */
	struct json_tokens *current;  /* record of the event last returned */
	const struct strbuf *current_line_out;
	struct pgo_file *current_file;
	char label[128];
	struct pgo_element *el;  /* the record's csElements */
	size_t nel, el_alloc;
	struct strbuf line;  /* an event line the reader did not make */
	struct pgo_event ev;
};

/* Keys the normalized events leave out (the first of each, as deleted). */
static const struct key dropped_keys[] = {
	KEY("startTime"), KEY("endTime"), KEY("isAbort"),
};

/*
 * In one pass over object @obj's members, the value of the first member
 * named keys[k] into *slot[k] (left as it is when there is none).
 */
static void find_members(struct json_tokens *t, int obj,
			 const struct key *keys, int *const *slot, int n)
{
	for (int j = obj + 1; j < (int)t->tok[obj].next; j = (int)t->tok[j + 1].next)
		for (int k = 0; k < n; k++) {
			if (*slot[k] >= 0 ||
			    !json_string_is_n(t, j, keys[k].s, keys[k].n))
				continue;
			*slot[k] = j + 1;
			break;
		}
}

static long number_or_minus_one(const char *s)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end || v < 0 || errno ? -1 : v;
}

/*
 * Process order: archetype name, then self: numbers first, in numeric
 * order, then the others in byte order (a total order, so that ranking the
 * processes once gives the tie-break of comparing them pairwise).
 */
static int process_cmp(const struct pgo_file *a, const struct pgo_file *b)
{
	int c = strcmp(a->archetype, b->archetype);

	if (c)
		return c;
	if ((a->self_num >= 0) != (b->self_num >= 0))
		return a->self_num >= 0 ? -1 : 1;
	if (a->self_num >= 0 && a->self_num != b->self_num)
		return a->self_num < b->self_num ? -1 : 1;
	return strcmp(a->self, b->self);
}

/* trace-*.log files of @dir, sorted by name. */
static int is_trace_log(const char *name)
{
	return !strncmp(name, "trace-", 6) && strlen(name) >= 10 &&
	       has_suffix(name, ".log");
}

static char **list_logs(const char *dir, size_t *n)
{
	char **names = list_dir(dir, is_trace_log, n);

	if (!names)
		die_at(EXIT_BAD_INPUT, dir, 0,
		       "not a directory of PGo trace-*.log files");
	if (!*n)
		die_at(EXIT_BAD_INPUT, dir, 0, "no trace-*.log files");
	for (size_t i = 0; i < *n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		free(names[i]);
		names[i] = path;
	}
	return names;
}

/* A process name: a string, and one a C string can hold. */
static const char *record_str(struct pgo_file *f, struct json_tokens *rec,
			      const char *key)
{
	int i = json_member(rec, 0, key);
	const char *s = json_string(rec, i);

	if (!s)
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record without string \"%s\"", key);
	if (!json_string_is(rec, i, s))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record whose \"%s\" holds a NUL character", key);
	return s;
}

/* The file's process, from its first record; the name must agree. */
static void identify(struct pgo_file *f)
{
	const char *base = strrchr(f->path, '/') + 1;
	size_t len;

	f->archetype = xstrdup(record_str(f, f->head, "archetypeName"));
	f->self = xstrdup(record_str(f, f->head, "self"));
	f->archetype_len = strlen(f->archetype);
	f->self_len = len = strlen(f->self);
	f->self_num = number_or_minus_one(f->self);
	if (strncmp(base + 6, f->self, len) || base[6 + len] != '-')
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "record of %s %s in a file named for another process",
		       f->archetype, f->self);
}

static int is_process(struct json_tokens *t, int arch, int self,
		      const struct pgo_file *p)
{
	return json_string_is_n(t, self, p->self, p->self_len) &&
	       json_string_is_n(t, arch, p->archetype, p->archetype_len);
}

/* The file of clock entry @entry, [archetype, self] in @who. */
static long process_index(struct pgo_merge *m, struct pgo_file *f,
			  int who, long count, size_t entry)
{
	struct json_tokens *t = f->head;
	int arch, self;

	if (!json_pair(t, who, &arch, &self) || !json_is(t, arch, JT_STRING) ||
	    !json_is(t, self, JT_STRING))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "clock entry without [archetype, self]");
	/* a process writes its clock entries in the same order every time */
	if (entry < f->nslots && is_process(t, arch, self, &m->files[f->slot[entry]]))
		return f->slot[entry];
	for (size_t j = 0; j < m->n; j++)
		if (is_process(t, arch, self, &m->files[j]))
			return (long)j;
	die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
	       "depends on event %ld of %s %s, but the run has no trace file "
	       "for %s %s", count, json_string(t, arch), json_string(t, self),
	       json_string(t, arch), json_string(t, self));
}

/* The members of record @t the merge reads. */
static struct pgo_members record_members(struct json_tokens *t)
{
	static const struct key keys[] = {
		KEY("archetypeName"), KEY("self"), KEY("clock"),
		KEY("isAbort"), KEY("csElements"),
	};
	struct pgo_members rm = { -1, -1, -1, -1, -1 };
	int *const slot[] = { &rm.archetype, &rm.self, &rm.clock, &rm.abort,
			      &rm.cs };

	if (json_is(t, 0, JT_OBJECT))
		find_members(t, 0, keys, slot, 5);
	return rm;
}

/* Parse the head's clock and check it against the record before it. */
static void load_clock(struct pgo_merge *m, struct pgo_file *f)
{
	struct json_tokens *t = f->head;
	struct pgo_members rm = record_members(t);
	int clock = rm.clock, abort = rm.abort;
	long own = f - m->files;
	size_t entry = 0;

	if (!json_is(t, clock, JT_ARRAY) ||
	    !(json_is(t, abort, JT_TRUE) || json_is(t, abort, JT_FALSE)))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record without clock array or isAbort");
	f->head_members = rm;
	if (!is_process(t, rm.archetype, rm.self, f))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "record of another process than %s %s",
		       f->archetype, f->self);
	f->head_abort = json_is(t, abort, JT_TRUE);
	memset(f->clock, 0, m->n * sizeof(*f->clock));
	f->sum = 0;
	json_for_each_element(t, e, clock) {
		int who, count;
		long long n;
		long j;

		/* up to 2^53: exact in a double, and a long holds it */
		if (!json_pair(t, e, &who, &count) || json_integer(t, count, &n) ||
		    n < 1)
			die_at(EXIT_BAD_INPUT, f->path, f->head_line,
			       "clock entry without a positive integer counter");
		j = process_index(m, f, who, (long)n, entry);
		if (entry < m->n) {
			f->slot[entry] = j;
			if (entry >= f->nslots)
				f->nslots = entry + 1;
		}
		entry++;
		f->clock[j] = (long)n;
		f->sum += f->clock[j];
	}
	if (f->clock[own] != f->prev[own] + 1)
		die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
		       "own clock of %s %s goes from %ld to %ld (must tick by "
		       "one per record)", f->archetype, f->self,
		       f->prev[own], f->clock[own]);
	for (size_t j = 0; j < m->n; j++)
		if (f->clock[j] < f->prev[j])
			die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
			       "clock entry for %s %s goes back from %ld to %ld",
			       m->files[j].archetype, m->files[j].self,
			       f->prev[j], f->clock[j]);
}

static void advance(struct pgo_merge *m, struct pgo_file *f)
{
	long *t = f->prev;

	f->prev = f->clock;
	f->clock = t;
	f->head = ndjson_ahead_next(m->ahead, f - m->files, &f->head_line,
				    &f->head_line_out);
	if (f->head)
		load_clock(m, f);
}

static int ready(const struct pgo_merge *m, const struct pgo_file *f)
{
	for (size_t j = 0; j < m->n; j++)
		if (&m->files[j] != f && f->clock[j] > m->files[j].emitted)
			return 0;
	return 1;
}

/* No head can go: name the dependency that cannot be met. */
static _Noreturn void stuck(const struct pgo_merge *m)
{
	const struct pgo_file *first = NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct pgo_file *f = &m->files[i];

		if (!f->head)
			continue;
		if (!first)
			first = f;
		for (size_t j = 0; j < m->n; j++) {
			const struct pgo_file *g = &m->files[j];

			if (g->head || f->clock[j] <= g->emitted)
				continue;
			die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
			       "depends on event %ld of %s %s, but %s ends "
			       "after %ld records", f->clock[j], g->archetype,
			       g->self, g->path, g->emitted);
		}
	}
	for (size_t j = 0; j < m->n; j++)
		if (first->clock[j] > m->files[j].emitted &&
		    &m->files[j] != first)
			die_at(EXIT_CHECK_FAILED, first->path, first->head_line,
			       "waits on event %ld of %s %s (%s:%ld), which "
			       "waits on it in turn: the vector clocks form a "
			       "cycle", first->clock[j], m->files[j].archetype,
			       m->files[j].self, m->files[j].path,
			       m->files[j].head_line);
	die(EXIT_CHECK_FAILED, "PGo merge stuck");
}

static struct pgo_file *pick(const struct pgo_merge *m)
{
	struct pgo_file *best = NULL;
	int pending = 0;

	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		if (!f->head)
			continue;
		pending = 1;
		if (!ready(m, f))
			continue;
		if (!best || f->sum < best->sum ||
		    (f->sum == best->sum && f->rank < best->rank))
			best = f;
	}
	if (pending && !best)
		stuck(m);
	return best;
}

/* The members of csElements entry @e a folder asks for (the first of each). */
static void element_members(struct json_tokens *t, int e,
			    struct pgo_element *el)
{
	static const struct key keys[] = {
		KEY("tag"), KEY("name"), KEY("indices"), KEY("value"),
		KEY("oldValue"),
	};
	int *const slot[] = { &el->tag, &el->name, &el->index, &el->value,
			      &el->old };

	find_members(t, e, keys, slot, 5);
	el->name = json_member(t, el->name, "name");
	el->index = json_element(t, el->index, 0);
}

/*
 * The record's csElements, indexed in one pass over their members: the
 * folders look them up several times per record.
 */
static void index_elements(struct pgo_merge *m, struct json_tokens *t, int cs)
{
	m->nel = 0;
	json_for_each_element(t, e, cs) {
		struct pgo_element *el;

		if (m->nel == m->el_alloc) {
			m->el_alloc = m->el_alloc ? 2 * m->el_alloc : 16;
			m->el = xrealloc(m->el, m->el_alloc * sizeof(*m->el));
		}
		el = &m->el[m->nel++];
		*el = (struct pgo_element){ -1, -1, -1, -1, -1 };
		if (json_is(t, e, JT_OBJECT))
			element_members(t, e, el);
	}
	m->ev.elements = m->el;
	m->ev.nelements = m->nel;
}

/* Element @el is a @tag of variable @name. */
static int element_is(struct json_tokens *t, const struct pgo_element *el,
		      const char *tag, const char *name)
{
	return json_string_is(t, el->tag, tag) && json_string_is(t, el->name, name);
}

static void label_of(struct pgo_merge *m, struct json_tokens *rec)
{
	m->label[0] = '\0';
	for (size_t i = 0; i < m->nel; i++) {
		const char *old = json_string(rec, m->el[i].old);
		size_t len;

		if (!old || !element_is(rec, &m->el[i], "write", ".pc"))
			continue;
		len = strlen(old);
		if (len >= 2 && old[0] == '"' && old[len - 1] == '"' &&
		    len - 2 < sizeof(m->label)) {
			memcpy(m->label, old + 1, len - 2);
			m->label[len - 2] = '\0';
		}
		return;
	}
}

static void drop_current(struct pgo_merge *m)
{
	struct pgo_file *f = m->current_file;

	if (!m->current)
		return;
	if (m->current != &f->first)
		ndjson_ahead_release(m->ahead, f - m->files);
	m->current = NULL;
}

static const struct pgo_event *merge_next(struct pgo_merge *m)
{
	struct pgo_file *f;
	int cs = -1;

	drop_current(m);
	while ((f = pick(m))) {
		int aborted = f->head_abort;

		cs = f->head_members.cs;
		m->current = f->head;
		m->current_line_out = f->head_line_out;
		m->current_file = f;
		m->ev = (struct pgo_event){
			.archetype = f->archetype, .self = f->self,
			.self_num = f->self_num, .file = f->path,
			.line = f->head_line, .record = m->current,
			.label = m->label,
		};
		f->emitted++;
		advance(m, f);
		if (!aborted)
			break;
		m->aborted++;
		drop_current(m);
	}
	if (!f)
		return NULL;
	index_elements(m, m->current, cs);
	label_of(m, m->current);
	m->committed++;
	return &m->ev;
}

/*
 * The record's event line (timestamps and isAbort left out), written on
 * the reading thread when it has time to spare.  Aborted sections get
 * none.
 */
static void event_line(struct json_tokens *rec, struct strbuf *out)
{
	int dropped[3] = { 0 }, first = 1;

	if (!json_is(rec, 0, JT_OBJECT) ||
	    !json_is(rec, json_member(rec, 0, "isAbort"), JT_FALSE))
		return;
	strbuf_add(out, "{", 1);
	for (unsigned j = 1; j < rec->tok[0].next; j = rec->tok[j + 1].next) {
		int skip = 0;

		for (int k = 0; k < 3 && !skip; k++)
			if (!dropped[k] &&
			    json_string_is_n(rec, (int)j, dropped_keys[k].s,
					     dropped_keys[k].n))
				skip = dropped[k] = 1;
		if (skip)
			continue;
		if (!first)
			strbuf_add(out, ",", 1);
		json_tokens_write(out, rec, (int)j);
		strbuf_add(out, ":", 1);
		json_tokens_write(out, rec, (int)j + 1);
		first = 0;
	}
	strbuf_add(out, "}\n", 2);
}

static void start_reading(struct pgo_merge *m, int write_events)
{
	struct line_reader **readers = xcalloc(m->n + 1, sizeof(*readers));

	for (size_t i = 0; i < m->n; i++)
		readers[i] = &m->files[i].r;
	m->ahead = ndjson_ahead_start(readers, m->n,
				      write_events ? event_line : NULL);
	free(readers);
}

/* The file's first record, read on this thread to know the process. */
static void read_first(struct pgo_file *f)
{
	struct ndjson_error e;
	int got = ndjson_try_next_tokens(&f->r, &f->first_text, &f->first, &e);

	if (got < 0)
		die_at(EXIT_BAD_INPUT, f->path, e.line, "%s", e.msg);
	f->head = got ? &f->first : NULL;
	f->head_line = f->r.line;
}

static void release_first(struct pgo_file *f)
{
	strbuf_release(&f->first_text);
	json_tokens_release(&f->first);
}

static struct pgo_merge *merge_open(const char *dir, int write_events)
{
	struct pgo_merge *m = xcalloc(1, sizeof(*m));
	char **paths = list_logs(dir, &m->n);
	size_t kept = 0;

	m->files = xcalloc(m->n, sizeof(*m->files));
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[kept];

		f->path = paths[i];
		line_reader_open(&f->r, f->path);
		read_first(f);
		if (!f->head) {
			/* an instance that recorded nothing has no events */
			line_reader_close(&f->r);
			release_first(f);
			free(f->path);
			continue;
		}
		identify(f);
		for (size_t j = 0; j < kept; j++)
			if (!process_cmp(&m->files[j], f))
				die_at(EXIT_BAD_INPUT, f->path, 0,
				       "second trace file for %s %s (first: %s)",
				       f->archetype, f->self, m->files[j].path);
		kept++;
	}
	free(paths);
	m->n = kept;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->n; j++)
			m->files[i].rank += process_cmp(&m->files[j], &m->files[i]) < 0;
	for (size_t i = 0; i < m->n; i++) {
		m->files[i].clock = xcalloc(m->n, sizeof(long));
		m->files[i].prev = xcalloc(m->n, sizeof(long));
		m->files[i].slot = xcalloc(m->n, sizeof(long));
	}
	for (size_t i = 0; i < m->n; i++)
		load_clock(m, &m->files[i]);
	start_reading(m, write_events);
	return m;
}

static void merge_close(struct pgo_merge *m)
{
	drop_current(m);
	ndjson_ahead_stop(m->ahead);
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		line_reader_close(&f->r);
		release_first(f);
		free(f->path);
		free(f->archetype);
		free(f->self);
		free(f->clock);
		free(f->prev);
		free(f->slot);
	}
	free(m->files);
	free(m->el);
	strbuf_release(&m->line);
	free(m);
}

static pgo_step_fn *archetype_step(const struct pgo_system *sys,
				   const struct pgo_event *e)
{
	for (size_t i = 0; i < 4 && sys->archetypes[i].archetype; i++)
		if (!strcmp(sys->archetypes[i].archetype, e->archetype))
			return sys->archetypes[i].step;
	die_at(EXIT_BAD_INPUT, e->file, e->line,
	       "archetype %s is not part of %s", e->archetype, sys->name);
}

void pgo_fold(struct fold_run *run, const struct pgo_system *sys)
{
	struct pgo_merge *m = merge_open(run->input, run->corpus != NULL);
	const struct pgo_event *e;
	void *ctx = sys->begin(run);

	while ((e = merge_next(m))) {
		const struct strbuf *line = m->current_line_out;

		if (!line || !line->len) {
			/* the reader had no time for it; nothing to make if not written */
			strbuf_reset(&m->line);
			if (run->corpus)
				event_line(e->record, &m->line);
			line = &m->line;
		}
		events_add_line(run->events, line->buf, line->len);
		archetype_step(sys, e)(ctx, run, e);
	}
	sys->end(ctx);
	if (!m->committed)
		die_at(EXIT_CHECK_FAILED, run->input, 0,
		       "no committed records: the trace files hold no "
		       "committed critical section");
	json_add(run->info, "processes", json_int((long long)m->n));
	json_add(run->info, "committed_sections", json_int(m->committed));
	json_add(run->info, "aborted_sections_dropped", json_int(m->aborted));
	merge_close(m);
}

/* The first csElements entry that is a @tag of @name (at @index if given). */
static const struct pgo_element *element(const struct pgo_event *e,
					 const char *tag, const char *name,
					 const char *index)
{
	for (size_t i = 0; i < e->nelements; i++) {
		const struct pgo_element *el = &e->elements[i];

		if (element_is(e->record, el, tag, name) &&
		    (!index || json_string_is(e->record, el->index, index)))
			return el;
	}
	return NULL;
}

const char *pgo_value(const struct pgo_event *e, const char *tag,
		      const char *name, const char *index)
{
	const struct pgo_element *el = element(e, tag, name, index);

	return el ? json_string(e->record, el->value) : NULL;
}

const char *pgo_index(const struct pgo_event *e, const char *tag,
		      const char *name)
{
	const struct pgo_element *el = element(e, tag, name, NULL);

	return el ? json_string(e->record, el->index) : NULL;
}

long pgo_int(const struct pgo_event *e, const char *value, const char *what)
{
	long v = value ? number_or_minus_one(value) : -1;

	if (v < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s of %s %s is %s, not a natural number", what,
		       e->archetype, e->self, value ? value : "missing");
	return v;
}

long pgo_id(const struct pgo_event *e, const char *value, const char *what)
{
	long v = pgo_int(e, value, what);

	if (v > PGO_MAX_ID)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s of %s %s is %ld, above %d (ids index arrays)", what,
		       e->archetype, e->self, v, PGO_MAX_ID);
	return v;
}
