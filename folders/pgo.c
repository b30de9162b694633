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

/* One archetype instance: its log and the record at its head. */
struct pgo_file {
	char *path;
	struct line_reader r;
	struct json_arena *first;  /* the first record's, read to identify */
	struct json_arena *head_arena;
	const struct strbuf *head_line_out;  /* the head's event line, if made */
	long *slot;        /* clock entry i named process slot[i] last time */
	size_t nslots;
	char *archetype, *self;
	long self_num;
	cJSON *head;       /* NULL once the file is exhausted */
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
	cJSON *current;    /* record of the event last returned */
	struct json_arena *current_arena;
	const struct strbuf *current_line_out;
	struct pgo_file *current_file;
	char label[128];
	struct pgo_event ev;
};

/* Keys the normalized events leave out (the first of each, as deleted). */
static const char *const dropped_keys[] = { "startTime", "endTime", "isAbort" };

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

/* Process order: archetype name, then self (numerically when both are). */
static int process_cmp(const struct pgo_file *a, const struct pgo_file *b)
{
	int c = strcmp(a->archetype, b->archetype);

	if (c)
		return c;
	if (a->self_num >= 0 && b->self_num >= 0 && a->self_num != b->self_num)
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

static const char *record_str(struct pgo_file *f, const cJSON *rec,
			      const char *key)
{
	const char *s = json_get_str(rec, key);

	if (!s)
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record without string \"%s\"", key);
	return s;
}

/* The file's process, from its first record; the name must agree. */
static void identify(struct pgo_file *f)
{
	const char *base = strrchr(f->path, '/') + 1;
	size_t len;

	f->archetype = xstrdup(record_str(f, f->head, "archetypeName"));
	f->self = xstrdup(record_str(f, f->head, "self"));
	f->self_num = number_or_minus_one(f->self);
	len = strlen(f->self);
	if (strncmp(base + 6, f->self, len) || base[6 + len] != '-')
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "record of %s %s in a file named for another process",
		       f->archetype, f->self);
}

static long process_index(struct pgo_merge *m, struct pgo_file *f,
			  const cJSON *who, long count, size_t entry)
{
	const char *arch = cJSON_GetArrayItem(who, 0) ?
		cJSON_GetArrayItem(who, 0)->valuestring : NULL;
	const char *self = cJSON_GetArrayItem(who, 1) ?
		cJSON_GetArrayItem(who, 1)->valuestring : NULL;

	if (!arch || !self)
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "clock entry without [archetype, self]");
	/* a process writes its clock entries in the same order every time */
	if (entry < f->nslots) {
		long j = f->slot[entry];

		if (!strcmp(m->files[j].self, self) &&
		    !strcmp(m->files[j].archetype, arch))
			return j;
	}
	for (size_t j = 0; j < m->n; j++)
		if (!strcmp(m->files[j].archetype, arch) &&
		    !strcmp(m->files[j].self, self))
			return (long)j;
	die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
	       "depends on event %ld of %s %s, but the run has no trace file "
	       "for %s %s", count, arch, self, arch, self);
}

/* Parse the head's clock and check it against the record before it. */
static void load_clock(struct pgo_merge *m, struct pgo_file *f)
{
	const cJSON *clock = json_get(f->head, "clock"), *e;
	const cJSON *abort = json_get(f->head, "isAbort");
	long own = f - m->files;

	if (!cJSON_IsArray(clock) || !cJSON_IsBool(abort))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record without clock array or isAbort");
	if (strcmp(record_str(f, f->head, "archetypeName"), f->archetype) ||
	    strcmp(record_str(f, f->head, "self"), f->self))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "record of another process than %s %s",
		       f->archetype, f->self);
	f->head_abort = cJSON_IsTrue(abort);
	memset(f->clock, 0, m->n * sizeof(*f->clock));
	f->sum = 0;
	size_t entry = 0;
	cJSON_ArrayForEach(e, clock) {
		const cJSON *who = cJSON_IsArray(e) ? e->child : NULL;
		const cJSON *count = who ? who->next : NULL;
		long j;

		/* up to 2^53: exact in a double, and a long holds it */
		if (!cJSON_IsNumber(count) || count->valuedouble < 1 ||
		    count->valuedouble >= 9007199254740992.0)
			die_at(EXIT_BAD_INPUT, f->path, f->head_line,
			       "clock entry without a positive counter");
		j = process_index(m, f, who, (long)count->valuedouble, entry);
		if (entry < m->n) {
			f->slot[entry] = j;
			if (entry >= f->nslots)
				f->nslots = entry + 1;
		}
		entry++;
		f->clock[j] = (long)count->valuedouble;
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
				    &f->head_arena, &f->head_line_out);
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
		    (f->sum == best->sum && process_cmp(f, best) < 0))
			best = f;
	}
	if (pending && !best)
		stuck(m);
	return best;
}

static void label_of(struct pgo_merge *m, const cJSON *rec)
{
	const cJSON *e;

	m->label[0] = '\0';
	cJSON_ArrayForEach(e, json_get(rec, "csElements")) {
		const char *tag = json_get_str(e, "tag");
		const char *name = json_get_str(json_get(e, "name"), "name");
		const char *old = json_get_str(e, "oldValue");
		size_t len;

		if (!tag || !name || !old || strcmp(tag, "write") ||
		    strcmp(name, ".pc"))
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
	json_arena_delete(m->current_arena, m->current);
	if (m->current_arena != f->first)
		ndjson_ahead_release(m->ahead, f - m->files);
	m->current = NULL;
}

static const struct pgo_event *merge_next(struct pgo_merge *m)
{
	struct pgo_file *f;

	drop_current(m);
	while ((f = pick(m))) {
		int aborted = f->head_abort;

		m->current = f->head;
		m->current_arena = f->head_arena;
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
	for (int k = 0; k < 3; k++)
		cJSON_DeleteItemFromObjectCaseSensitive(m->current,
							dropped_keys[k]);
	label_of(m, m->current);
	m->committed++;
	return &m->ev;
}

/*
 * The record's event line, written on the reading thread: serializing is
 * the biggest cost left on the merging thread.  Aborted sections get none.
 * The reader refused anything json_write() would (json_check_record()).
 */
static void event_line(const cJSON *rec, struct strbuf *out)
{
	int dropped[3] = { 0 }, first = 1;
	const cJSON *m;

	if (!cJSON_IsObject(rec) || !cJSON_IsFalse(json_get(rec, "isAbort")))
		return;
	strbuf_add(out, "{", 1);
	cJSON_ArrayForEach(m, rec) {
		int skip = 0;

		for (int k = 0; k < 3 && !skip; k++)
			if (!dropped[k] && !strcmp(m->string, dropped_keys[k]))
				skip = dropped[k] = 1;
		if (skip)
			continue;
		json_write_member(out, m->string, m, first, JSON_COMPACT);
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
		f->first = f->head_arena = json_arena_new();
		f->head = ndjson_next_in(&f->r, f->first);
		f->head_line = f->r.line;
		if (!f->head) {
			/* an instance that recorded nothing has no events */
			line_reader_close(&f->r);
			json_arena_free(f->first);
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
	for (size_t i = 0; i < m->n; i++)
		if (m->files[i].head)
			json_arena_delete(m->files[i].head_arena,
					  m->files[i].head);
	ndjson_ahead_stop(m->ahead);
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		line_reader_close(&f->r);
		json_arena_free(f->first);
		free(f->path);
		free(f->archetype);
		free(f->self);
		free(f->clock);
		free(f->prev);
		free(f->slot);
	}
	free(m->files);
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

		if (line && line->len)
			events_add_line(run->events, line->buf, line->len);
		else
			events_add(run->events, e->record);
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

static const cJSON *element(const struct pgo_event *e, const char *tag,
			    const char *name, const char *index)
{
	const cJSON *el;

	cJSON_ArrayForEach(el, json_get(e->record, "csElements")) {
		const cJSON *idx = cJSON_GetArrayItem(json_get(el, "indices"), 0);
		const char *t = json_get_str(el, "tag");
		const char *n = json_get_str(json_get(el, "name"), "name");

		if (!t || !n || strcmp(t, tag) || strcmp(n, name))
			continue;
		if (index && (!cJSON_IsString(idx) ||
			      strcmp(idx->valuestring, index)))
			continue;
		return el;
	}
	return NULL;
}

const char *pgo_value(const struct pgo_event *e, const char *tag,
		      const char *name, const char *index)
{
	return json_get_str(element(e, tag, name, index), "value");
}

const char *pgo_index(const struct pgo_event *e, const char *tag,
		      const char *name)
{
	const cJSON *idx = cJSON_GetArrayItem(
		json_get(element(e, tag, name, NULL), "indices"), 0);

	return cJSON_IsString(idx) ? idx->valuestring : NULL;
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
